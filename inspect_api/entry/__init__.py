"""Site-entry authorizations (R-E): the legal basis for every visit, survey or sample."""
