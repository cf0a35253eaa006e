r"""Plain text inside reStructuredText (Snakemake report captions are rendered by docutils).

A caption such as "sensitivity 2C/|D_n| of one sample" is read as RST: ``|D_n|`` becomes an undefined
substitution reference and the report shows a "Docutils System Message" instead of the caption.
:func:`escape` makes any text render as exactly its characters, as one paragraph.

>>> print(escape("sensitivity 2C/|D_n| is *not* `code`"))
sensitivity 2C\/\|D\_n\| is \*not\* \`code\`
"""

from __future__ import annotations

import string

#: every ASCII punctuation character; a backslash before any of them is a literal character in RST
SPECIAL = frozenset(string.punctuation)


def escape(text: str) -> str:
    """``text`` as reStructuredText that renders as the same characters, in one paragraph.

    Whitespace runs (line breaks, indentation) become one space, so no line can start a block (a list,
    a section underline, a comment, a block quote), and every ASCII punctuation character is
    backslash-escaped, so no inline markup (emphasis, literals, substitutions ``|x|``, references
    ``x_``, roles, targets) is recognised.
    """
    flat = " ".join(str(text).split())
    return "".join("\\" + ch if ch in SPECIAL else ch for ch in flat)
