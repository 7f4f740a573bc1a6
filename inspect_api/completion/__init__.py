"""Close-out of a project (R-F): completion notices, final reports and certificates of completion."""
