#!/usr/bin/env python3
"""The layering of the rooms as a test.

Reads the rooms table of docs/ARCHITECTURE.md (section 1: "| `room` | what it holds | may
include |") and checks every C++ file under the rooms: a quoted or angled #include whose first
path part names a room (format/..., model/..., mlprof/...) must be the file's own room or one its
row lists. Also fails when a source file points at DESIGN.md, which the repository does not have.

    check_layering.py ROOT            check the tree at ROOT
    check_layering.py --self-test     show that a forbidden include is caught
"""
import os
import re
import sys
import tempfile

SOURCE_EXTENSIONS = ('.h', '.hpp', '.cc', '.cpp', '.cu')
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')
ROW = re.compile(r'^\|\s*`([^`]+)`\s*\|.*\|(.*)\|\s*$')


def read_rooms(doc_path):
    """{room: set of rooms it may include}, from the first table of the document."""
    rooms = {}
    with open(doc_path, encoding='utf-8') as f:
        for line in f:
            m = ROW.match(line)
            if m:
                rooms[m.group(1)] = set(re.findall(r'`([^`]+)`', m.group(2)))
            elif rooms and not line.startswith('|'):
                break  # the end of the table
    return rooms


def room_of_file(rooms, rel_path):
    best = None
    for room in rooms:
        if rel_path.startswith(room + '/') and (best is None or len(room) > len(best)):
            best = room
    return best


def room_of_include(rooms, include):
    """The room an include path names: "capture/cupti/x.h" -> src/capture/cupti."""
    best = None
    for room in rooms:
        name = room[len('src/'):] if room.startswith('src/') else room[len('include/'):] if room.startswith('include/') else room
        if include.startswith(name + '/') and (best is None or len(room) > len(best)):
            best = room
    return best


def check(root):
    rooms = read_rooms(os.path.join(root, 'docs', 'ARCHITECTURE.md'))
    if not rooms:
        return ['docs/ARCHITECTURE.md: no rooms table found']
    problems = []
    for top in ('src', 'include', 'examples', 'tests', 'bench', 'python', 'scripts', 'cmake', 'ui/src'):
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if d != 'node_modules']
            for name in sorted(files):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root)
                if not name.endswith(SOURCE_EXTENSIONS + ('.ts', '.mjs', '.py', '.sh', '.txt', '.cmake', '.proto')):
                    continue
                with open(path, encoding='utf-8', errors='replace') as f:
                    text = f.read()
                if 'DESIGN.md' in text and rel != 'tests/layering/check_layering.py':
                    problems.append(f'{rel}: points at DESIGN.md; point at docs/ARCHITECTURE.md instead')
                own = room_of_file(rooms, rel)
                if own is None or not name.endswith(SOURCE_EXTENSIONS):
                    continue
                allowed = rooms[own] | {own}
                for number, line in enumerate(text.splitlines(), 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = room_of_include(rooms, m.group(1))
                    # A room's subroom (capture -> capture/cupti) counts only when listed.
                    if target is not None and target not in allowed:
                        problems.append(f'{rel}:{number}: {own} may not include {target} ({m.group(1)})')
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, 'docs'))
        with open(os.path.join(root, 'docs', 'ARCHITECTURE.md'), 'w') as f:
            f.write('| room | holds | may include |\n|---|---|---|\n'
                    '| `src/format` | bytes | |\n| `src/model` | model | `src/format` |\n\ntext\n')
        for rel, body in (('src/format/a.h', '#include "format/b.h"\n#include <vector>\n'),
                          ('src/model/m.h', '#include "format/a.h"\n')):
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), 'w') as f:
                f.write(body)
        if check(root):
            print('self-test: a clean tree was reported:', check(root))
            return 1
        with open(os.path.join(root, 'src/format/bad.cc'), 'w') as f:
            f.write('#include "model/m.h"\n')
        problems = check(root)
        if problems != ['src/format/bad.cc:1: src/format may not include src/model (model/m.h)']:
            print('self-test: the forbidden include was not reported as expected:', problems)
            return 1
    print('self-test: ok')
    return 0


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    if len(argv) != 2:
        print(__doc__)
        return 2
    problems = check(argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f'layering: {len(problems)} problem(s); the rooms table is docs/ARCHITECTURE.md section 1')
        return 1
    print('layering: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
