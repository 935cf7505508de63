#!/usr/bin/env python3
"""Checks the links of the project's Markdown documents: every relative link must name a file or
folder that exists, and every #anchor a heading of the file it points into (GitHub's anchors:
lowercase, punctuation other than '-' and '_' dropped, spaces made '-', '-1', '-2', ... for
repeats). Also checks that the README stays a tour: at most 300 lines.

  check_links.py SOURCE_DIR          exit 1 and one line per broken link
  check_links.py --self-test         the checker on documents with every kind of mistake
"""
import os
import re
import sys
import tempfile

LINK = re.compile(r'(?<!\!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
README_MAX_LINES = 300


def slug(title):
    return re.sub(r'[^\w\- ]', '', title.strip().lower()).replace(' ', '-')


def anchors(path):
    seen, out = {}, set()
    fence = False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('```'):
                fence = not fence
            if fence:
                continue
            m = HEADING.match(line)
            if not m:
                continue
            a = slug(m.group(2))
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else f'{a}-{n}')
    return out


def documents(root):
    docs = [os.path.join(root, 'README.md')]
    for d in ('docs',):
        folder = os.path.join(root, d)
        if os.path.isdir(folder):
            docs += sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith('.md'))
    for sub in ('runtime-support', 'bench', 'schedules', 'examples'):
        p = os.path.join(root, sub, 'README.md')
        if os.path.isfile(p):
            docs.append(p)
    return docs


def check(root):
    errors = []
    cache = {}
    for doc in documents(root):
        fence = False
        with open(doc, encoding='utf-8') as f:
            lines = f.read().split('\n')
        rel_doc = os.path.relpath(doc, root)
        if rel_doc == 'README.md' and len(lines) - 1 > README_MAX_LINES:
            errors.append(f'README.md: {len(lines) - 1} lines; the tour keeps to {README_MAX_LINES} '
                          '(move reference material to docs/)')
        for n, line in enumerate(lines, 1):
            if line.startswith('```'):
                fence = not fence
            if fence:
                continue
            for m in LINK.finditer(re.sub(r'`[^`]*`', lambda c: ' ' * len(c.group(0)), line)):
                target = m.group(1)
                if re.match(r'^[a-z]+:', target):
                    continue
                path, _, anchor = target.partition('#')
                full = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
                where = f'{rel_doc}:{n}: link {target}'
                if not os.path.exists(full):
                    errors.append(f'{where}: no such file or folder')
                    continue
                if not os.path.realpath(full).startswith(os.path.realpath(root) + os.sep):
                    errors.append(f'{where}: points outside the repository')
                    continue
                if anchor:
                    if not full.endswith('.md') or os.path.isdir(full):
                        errors.append(f'{where}: an anchor into a file that is not Markdown')
                        continue
                    if full not in cache:
                        cache[full] = anchors(full)
                    if anchor not in cache[full]:
                        errors.append(f'{where}: no heading #{anchor} in {os.path.relpath(full, root)}')
    return errors


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, 'docs'))
        with open(os.path.join(root, 'docs', 'a.md'), 'w') as f:
            f.write('# Title `x`\n## The C API: dspc_context\n## Same\n## Same\n```\n# not a heading\n```\n')
        with open(os.path.join(root, 'README.md'), 'w') as f:
            f.write('[ok](docs/a.md#title-x) [ok](docs/a.md#the-c-api-dspc_context) [ok](docs/a.md#same-1)\n'
                    '[ok](docs/) [ok](https://example.com/x) `[code](nowhere.md)`\n'
                    '[bad](docs/b.md) [bad](docs/a.md#not-a-heading) [bad](#missing) [bad](../outside.md)\n')
        with open(os.path.join(root, 'outside.md'), 'w'):
            pass
        errors = check(root)
        want = ['docs/b.md', '#not-a-heading', '#missing', '../outside.md']
        bad = [w for w in want if not any(w in e for e in errors)]
        if bad or len(errors) != len(want):
            print('self-test failed:', errors, 'missing:', bad)
            return 1
        with open(os.path.join(root, 'README.md'), 'a') as f:
            f.write('\n' * 400)
        if not any('lines; the tour keeps' in e for e in check(root)):
            print('self-test failed: a long README passed')
            return 1
    print('self-test ok')
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    errors = check(sys.argv[1])
    for e in errors:
        print(e)
    print(f'{len(errors)} broken link(s)' if errors else 'links ok')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
