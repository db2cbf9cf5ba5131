"""The GENERATED blocks of the docs pages: the one implementation of the table scripts' --write
and --check (plot_scaling.py, plot_testbed.py, adaptive_table.py, adaptive_campaign.py,
auto_sweep.py, online_convergence.py, bench_min_of_reps.py, stragglar_tables.py and
examples/trainer/summarize.py).

A block is the text between `<!-- BEGIN GENERATED: NAME -->` and `<!-- END GENERATED: NAME -->`
in a page; a script makes every block's text from the data stored in the repository, and
update() either writes the blocks into the page or checks that the page already holds them."""
import re
import sys


def replace_block(text, name, body, append=False):
    """`text` with block `name` holding `body`; a missing block is appended when `append`, else
    it is a KeyError."""
    begin, end = f"<!-- BEGIN GENERATED: {name} -->", f"<!-- END GENERATED: {name} -->"
    block = f"{begin}\n{body}\n{end}"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if pattern.search(text):
        return pattern.sub(lambda _: block, text)
    if append:
        return text.rstrip("\n") + "\n\n" + block + "\n"
    raise KeyError(f"no GENERATED block '{name}'")


def stale(text, blocks):
    """The names of `blocks` (name -> body) that `text` lacks or holds with another body."""
    out = []
    for name, body in blocks.items():
        try:
            if replace_block(text, name, body) != text:
                out.append(name)
        except KeyError:
            out.append(name)
    return out


def add_options(ap, doc, write, checked, source):
    """Adds to argparse parser `ap` the options that update() serves: --doc (the page, default
    `doc`), --write (`write` is its help) and --check, whose help says that it fails when `checked`
    (e.g. "the table") of --doc differs from what `source` gives."""
    ap.add_argument("--doc", default=doc)
    ap.add_argument("--write", action="store_true", help=write)
    ap.add_argument("--check", action="store_true",
                    help=f"write nothing; fail when {checked} of --doc differs from what {source} "
                         "gives")


def update(doc, blocks, check, source, rerun):
    """Writes `blocks` (name -> body) into page `doc`, or with `check` writes nothing and returns 1
    (naming the stale blocks, made from `source`; `rerun` says how to fix them) when the page
    differs. Returns the exit status."""
    text = open(doc).read()
    if check:
        bad = stale(text, blocks)
        if bad:
            print(f"{doc}: blocks not what {source} gives: {', '.join(bad)} (rerun {rerun})",
                  file=sys.stderr)
            return 1
        print(f"{doc}: {len(blocks)} block(s) match {source}")
        return 0
    for name, body in blocks.items():
        text = replace_block(text, name, body, append=True)
    with open(doc, "w") as f:
        f.write(text)
    print("wrote", doc, file=sys.stderr)
    return 0
