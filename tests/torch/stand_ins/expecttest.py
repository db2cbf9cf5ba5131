"""A stand-in for the expecttest package (which Debian does not package), as far as torch's own
test harness needs it: a TestCase base and the ACCEPT flag. Inline expectations compare plainly."""

import unittest

ACCEPT = False


class TestCase(unittest.TestCase):
    longMessage = True

    def assertExpectedInline(self, actual, expect, skip=0):  # noqa: N802 (unittest's style)
        self.assertEqual(actual, expect)
