"""Photo evidence: uploads (plain and resumable), EXIF and location, thumbnails, storage."""
