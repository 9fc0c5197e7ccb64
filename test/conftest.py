"""Shared pytest set-up: tests import the installed package, never a copy."""
