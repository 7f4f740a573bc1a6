"""E-mail notification: the transactional outbox (outbox.enqueue), the worker that delivers it
(worker.py, `inspect-api worker`), and the delivery evidence (GET /api/v1/notifications)."""
from ..config import setting_parser
from .delivery import SmtpSettings

setting_parser("SMTP_URL", SmtpSettings.parse, optional=True)
