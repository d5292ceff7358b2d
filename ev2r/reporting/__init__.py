"""Reports people read: the reasons of an explained score in words (:mod:`ev2r.reporting.reasons`) and the
self-contained HTML page of a scored run (:mod:`ev2r.reporting.html`, ``ev2r report``)."""

from ev2r.reporting.html import render_report, report_items, write_report
from ev2r.reporting.reasons import reading

__all__ = ["reading", "render_report", "report_items", "write_report"]
