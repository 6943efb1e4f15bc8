#!/usr/bin/env python3
"""A rule-based coreference baseline, served over metamorph's JSONL subprocess protocol.

It follows the first passes of a deterministic sieve (Raghunathan et al., 2010, "A multi-pass
sieve for coreference resolution") on surface text only:

1. mentions are maximal runs of capitalised words (names; a sentence-initial function word is not
   a name) and third-person personal pronouns;
2. names corefer when their strings match exactly, or when one is a single word equal to the
   first or last word of the other ("Babbage" and "Charles Babbage");
3. a singular personal pronoun links to a preceding name cluster whose gender (set by the first
   pronoun linked to it) agrees, within the current and the two previous sentences: for "he" and
   "she" the one whose latest mention opened its sentence (a subject, the usual antecedent of a
   subject pronoun) if any, else the most recent one.

It is a weak, honest baseline bundled so that `cargo xtask pipeline` runs CREST end to end on any
machine; replace it with your own coreference model by changing `[[execute.models]]` in
metamorph.toml. Standard library only.

Request: {"id": ..., "task": "coref", "text": ...}. Response: {"id": ..., "clusters": [[[start,
end], ...], ...]} with character offsets into `text` (clusters of one mention are left out).

With `--http HOST:PORT` it serves the same objects over HTTP instead (metamorph's `kind =
"http"`): each POST carries a JSON array of requests and is answered with a JSON array of
responses; it prints `serving http://HOST:PORT/` first (port 0 picks a free port).
"""
import json
import re
import sys

WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|[0-9]+|[^\sA-Za-z0-9]")
SENTENCE_END = {".", "!", "?"}
MALE = {"he", "him", "his", "himself"}
FEMALE = {"she", "her", "hers", "herself"}
FUNCTION_WORDS = set(
    """a an the this that these those it its he she his her they their them we our you your i my
    in on at to for from by with of and or but if when while after before as then there here so
    yet not no one some all many most such what which who whom whose where why how do does did is
    are was were be been being has have had can could will would shall should may might must
    mr mrs miss ms dr""".split()
)
TITLES = {"Mr", "Mrs", "Miss", "Ms", "Dr", "Sir", "Lady", "Lord"}


def tokens(text):
    return [(m.group(), m.start(), m.end()) for m in WORD.finditer(text)]


def mentions(text):
    """(start, end, kind, words, sentence) for names and personal pronouns, in text order."""
    out = []
    sentence = 0
    sentence_start = True
    toks = tokens(text)
    i = 0
    while i < len(toks):
        word, start, end = toks[i]
        lower = word.lower()
        if lower in MALE or lower in FEMALE:
            out.append((start, end, "male" if lower in MALE else "female", [lower], sentence))
        elif word[0].isupper() and not (sentence_start and lower in FUNCTION_WORDS and word not in TITLES):
            j = i
            words = []
            while j < len(toks) and toks[j][0][0].isupper() and toks[j][0].lower() not in MALE | FEMALE:
                if toks[j][0] not in TITLES:
                    words.append(toks[j][0])
                j += 1
            if words:
                out.append((start, toks[j - 1][2], "name", words, sentence))
            sentence_start = False
            i = j
            continue
        if word in SENTENCE_END or "\n" in text[end:end + 1]:
            sentence += 1
            sentence_start = True
        else:
            sentence_start = False
        i += 1
    return out


def same_entity(a, b):
    if a == b:
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) == 1 and (short[0] == long[0] or short[0] == long[-1])


def clusters(text):
    found = mentions(text)
    # Each entity: its names, mention spans, gender (None until a pronoun links), the sentence of
    # its latest mention and whether that mention opened its sentence.
    entities = []
    seen_sentences = set()
    for start, end, kind, words, sentence in found:
        first_in_sentence = sentence not in seen_sentences
        seen_sentences.add(sentence)
        if kind == "name":
            for entity in reversed(entities):
                if any(same_entity(words, n) for n in entity["names"]):
                    entity["names"].append(words)
                    entity["spans"].append([start, end])
                    entity["last"] = sentence
                    entity["opens_sentence"] = first_in_sentence
                    break
            else:
                entities.append({
                    "names": [words], "spans": [[start, end]], "gender": None,
                    "last": sentence, "opens_sentence": first_in_sentence,
                })
        else:
            # The most recently mentioned compatible entity within the window.
            candidates = [
                e for e in entities
                if e["names"] and sentence - e["last"] <= 2 and e["gender"] in (None, kind)
            ]
            if not candidates:
                continue
            nominative = words[0] in ("he", "she")
            entity = max(
                candidates,
                key=lambda e: (nominative and e["opens_sentence"], e["spans"][-1][0]),
            )
            entity["gender"] = kind
            entity["spans"].append([start, end])
            entity["last"] = sentence
            entity["opens_sentence"] = first_in_sentence
    return [sorted(e["spans"]) for e in entities if len(e["spans"]) > 1]


def predict(request):
    if request.get("task") != "coref":
        return {"id": request["id"], "error": "this baseline only answers coref"}
    return {"id": request["id"], "clusters": clusters(request.get("text") or "")}


def answer(request):
    """The response to one request object; a failure is reported, not raised."""
    try:
        return predict(request)
    except Exception as error:  # report, keep serving
        identifier = request.get("id", "") if isinstance(request, dict) else ""
        return {"id": identifier, "error": str(error)}


def serve_jsonl():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
        except ValueError as error:
            request = None
            response = {"id": "", "error": f"not JSON: {error}"}
        else:
            response = answer(request)
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()


def serve_http(address):
    """metamorph's `kind = "http"`: POST a JSON array of requests, get a JSON array back."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    host, _, port = address.rpartition(":")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            try:
                requests = json.loads(self.rfile.read(length))
                if not isinstance(requests, list):
                    raise ValueError("expected a JSON array of requests")
            except ValueError as error:
                self.reply(400, {"error": str(error)})
                return
            self.reply(200, [answer(request) for request in requests])

        def reply(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format, *args):
            sys.stderr.write("%s %s\n" % (self.address_string(), format % args))

    server = ThreadingHTTPServer((host or "127.0.0.1", int(port)), Handler)
    # The bound address (port 0 picks a free one), for whoever started the server.
    print(f"serving http://{server.server_address[0]}:{server.server_address[1]}/", flush=True)
    server.serve_forever()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        serve_http(sys.argv[2])
    elif len(sys.argv) == 1:
        serve_jsonl()
    else:
        sys.exit(f"usage: {sys.argv[0]} [--http HOST:PORT]")


if __name__ == "__main__":
    main()
