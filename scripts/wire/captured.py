#!/usr/bin/env python3
"""Turns nats-server trace logs (-V) of a cluster of the previous release into wire fixtures:
each published message's payload, by subject kind. Usage: parse_trace.py OUTDIR LOG..."""
import re, sys, os, json, collections

def go_unquote(s, i):
    # s[i] == '"'; returns (bytes, next index)
    assert s[i] == '"'
    i += 1
    out = bytearray()
    simple = {'a': 7, 'b': 8, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11, '\\': 92, '"': 34, "'": 39}
    while s[i] != '"':
        c = s[i]
        if c == '\\':
            n = s[i + 1]
            if n in simple:
                out.append(simple[n]); i += 2
            elif n == 'x':
                out.append(int(s[i + 2:i + 4], 16)); i += 4
            elif n == 'u':
                out += chr(int(s[i + 2:i + 6], 16)).encode(); i += 6
            elif n == 'U':
                out += chr(int(s[i + 2:i + 10], 16)).encode(); i += 10
            elif n in '01234567':
                out.append(int(s[i + 1:i + 4], 8)); i += 4
            else:
                raise ValueError(s[i:i + 10])
        else:
            out += c.encode(); i += 1
    return bytes(out), i + 1

def kind_of(subject):
    if subject.startswith('pokerd.table.'): return 'envelope'
    if subject.startswith('pokerd.inbox.') and subject.endswith('.gone'): return None
    if subject.startswith('pokerd.inbox.'): return 'batch'
    if subject == 'pokerd.lobby': return 'lobby'
    if subject == 'pokerd.moved': return 'moved'
    if subject == 'pokerd.node': return 'node'
    if subject == 'pokerd.session.ended': return 'session_ended'
    return None

def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    pending = {}  # cid -> (subject, reply)
    replies = {}  # reply subject -> kind of the request it answers
    seen = collections.defaultdict(set)
    counts = collections.Counter()
    limit = {'envelope': 60, 'batch': 80, 'lobby': 12, 'moved': 6, 'node': 4, 'session_ended': 4, 'answer': 60}
    for log in sys.argv[2:]:
        for line in open(log, encoding='utf-8', errors='replace'):
            m = re.search(r'cid:(\d+).*<<- \[(H?PUB) (\S+)(?: (\S+))? (?:\d+ )?\d+\]', line)
            if m:
                cid, verb, subject, reply = m.group(1), m.group(2), m.group(3), m.group(4)
                pending[cid] = (subject, reply)
                continue
            m = re.search(r'cid:(\d+).*<<- MSG_PAYLOAD: \[?', line)
            if not m or m.group(1) not in pending:
                continue
            subject, reply = pending.pop(m.group(1))
            start = line.index('"', m.end() - 1)
            payload, _ = go_unquote(line, start)
            kind = kind_of(subject)
            if kind == 'envelope' and reply:
                replies[reply] = 'answer'
            if kind is None and subject in replies:
                kind = replies.pop(subject)
            if kind is None or not payload:
                continue
            if kind != 'batch':
                try:
                    value = json.loads(payload)
                except Exception:
                    continue
                # One of each shape: the request's or answer's variant, the rest by keys.
                def variant(v):
                    return list(v.keys())[0] if isinstance(v, dict) and len(v) == 1 else (v if isinstance(v, str) else 'struct')
                if kind == 'envelope':
                    req = value['request']
                    inner = req.get(variant(req)) if isinstance(req, dict) else None
                    sub = variant(inner.get('request') or inner.get('ask')) if isinstance(inner, dict) else None
                    key = (variant(req), sub, value.get('inbox') is None)
                elif kind == 'answer':
                    outer = variant(value)
                    key = (outer, variant(value[outer]) if isinstance(value, dict) else None)
                else:
                    key = tuple(sorted(value.keys())) + ((value.get('summary') or {}).get('status', ''), (value.get('summary') or {}).get('players'), (value.get('summary') or {}).get('game'), value.get('up'))
            else:
                frames = []
                rest = payload
                ok = True
                while rest:
                    if len(rest) < 5: ok = False; break
                    n = int.from_bytes(rest[1:5], 'little')
                    text = rest[5:5 + n]
                    try:
                        t = json.loads(text).get('type')
                    except Exception:
                        ok = False; break
                    frames.append((rest[0], t))
                    rest = rest[5 + n:]
                if not ok: continue
                key = tuple(frames)
            if key in seen[kind] or counts[kind] >= limit[kind]:
                continue
            seen[kind].add(key)
            counts[kind] += 1
            ext = 'bin' if kind == 'batch' else 'json'
            name = f'captured-{kind}-{counts[kind]:03}.{ext}'
            with open(os.path.join(out_dir, name), 'wb') as f:
                if ext == 'json':
                    f.write(json.dumps(json.loads(payload), indent=1, sort_keys=True).encode() + b'\n')
                else:
                    f.write(payload)
    print(dict(counts))

main()
