"""Reports: the inspection report PDF and the permit timeline, read from the domains they draw on."""
