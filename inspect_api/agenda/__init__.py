"""The agenda: the one read model of what is due and by when.

Findings (R-I4), orders (R-O1), final reports (R-F2), the Town's cost notices and each recipient's
protest window (R-O3), certificates waiting (R-F3), bond releases waiting (R-D2, R-D3), overdue
inspections (the program) and lapsed approvals (R-A6), each read through its own domain and loaded
up front as one kind of item. The supervisors' Deadlines view (GET /deadlines, `inspect-api
deadlines`) lists the published kinds; the daily reminders (notifications/reminders.py) read the
same items and name them their own way. The agenda stores nothing.
"""
