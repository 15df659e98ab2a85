#!/usr/bin/env python3
"""doxygen-filter.py FILE: a public header as Doxygen should read it.

ffm's headers document each declaration with a plain C comment just before
it (and struct fields and enum values with one after them on the same
line). Doxygen reads only /** */ and /**< */ as documentation, so this
input filter (the Doxyfile's INPUT_FILTER) rewrites, on the fly and line
for line (line numbers stay true):
  - the header's opening comment into the file's description (@file);
  - a comment that starts a line into /** (documents what follows);
  - a comment that follows code on its line into /**< (documents that
    code);
  - section rulers (/* ---- Name ---- */) are left as plain comments;
  - inside comments, a parameter named the gtk-doc way (@name) is shown in
    code font (\\p name): Doxygen would read @name as a command; a
    placeholder in angle brackets (<libdir>) is escaped, not an HTML tag."""
import re
import sys

PARAM = re.compile(r'@([A-Za-z_][A-Za-z0-9_]*)')
PLACEHOLDER = re.compile(r'<([A-Za-z_][A-Za-z0-9_]*)>')


def comment_text(text):
    text = PARAM.sub(r'\\p \1', text)
    return PLACEHOLDER.sub(r'\\<\1\\>', text)
RULER = re.compile(r'^\s*/\*\s*-{2,}')
LEADING = re.compile(r'^(\s*)/\*(?![*!])')
TRAILING = re.compile(r'^(\s*[^\s/].*?)/\*(?![*!<])')


def filter_header(text):
    out = []
    in_comment = False
    first = True
    for line in text.split('\n'):
        if in_comment:
            out.append(comment_text(line))
            if '*/' in line:
                in_comment = False
            continue
        new = line
        if first and line.startswith('/*'):
            new = '/** \\file ' + line[2:].lstrip()
            first = False
        elif RULER.match(line):
            pass
        elif LEADING.match(line):
            new = LEADING.sub(r'\1/**', line, count=1)
        elif TRAILING.match(line) and '"' not in line.split('/*', 1)[0]:
            new = TRAILING.sub(r'\1/**<', line, count=1)
        if line.strip():
            first = False
        start = new.find('/*')
        if start >= 0:
            new = new[:start] + comment_text(new[start:])
        start = new.rfind('/*')
        if start >= 0 and '*/' not in new[start:]:
            in_comment = True
        out.append(new)
    return '\n'.join(out)


def main():
    with open(sys.argv[1], encoding='utf-8') as f:
        sys.stdout.write(filter_header(f.read()))


if __name__ == '__main__':
    main()
