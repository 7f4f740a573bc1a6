"""E-mail notification: the transactional outbox (outbox.enqueue), the worker that delivers it
(worker.py, `inspect-api worker`), and the delivery evidence (GET /api/v1/notifications)."""
from ..config import setting_parser
from .delivery import SmtpSettings, parse_mail_from, parse_tls_mode, tls_context

setting_parser("SMTP_URL", SmtpSettings.parse, optional=True)
setting_parser("SMTP_TLS", parse_tls_mode, optional=True)
setting_parser("SMTP_CA_FILE", tls_context, optional=True)
setting_parser("MAIL_FROM", parse_mail_from)
