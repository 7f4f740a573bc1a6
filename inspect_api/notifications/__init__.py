"""E-mail notification: the transactional outbox (outbox.enqueue), the worker that delivers it
(worker.py, `inspect-api worker`), and the delivery evidence (GET /api/v1/notifications)."""
