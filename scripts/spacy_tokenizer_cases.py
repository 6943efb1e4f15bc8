"""Writes parse/tests/fixtures/spacy_tokenizer_cases.jsonl: spaCy's tokenization of targeted
strings that the golden data covers thinly (contractions, abbreviations, URLs, emails,
emoticons, numbers and units, hyphens, quotes, ellipses, brackets, non-ASCII punctuation,
odd whitespace) plus seeded random strings, one JSON object per line: `text`, `words`, `ws` and `norms` (the NORM a
tokenizer special case sets, or null).

Usage: python3 scripts/spacy_tokenizer_cases.py [PIPELINE_DIR] (or `cargo xtask fixtures
spacy-tokenizer`); it runs itself in the spaCy virtualenv that scripts/spacy_golden.py sets up.
"""

import itertools
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import spacy_golden  # noqa: E402  (the spaCy virtualenv and the model's location)

if not spacy_golden.in_venv():
    spacy_golden.bootstrap(__file__)

import spacy  # noqa: E402
from spacy.tokenizer import Tokenizer  # noqa: E402
from spacy.vocab import Vocab  # noqa: E402

DEFAULT_DIR = spacy_golden.default_model_dir()
OUT = Path(__file__).resolve().parent.parent / "parse/tests/fixtures/spacy_tokenizer_cases.jsonl"

CASES = [
    # Contractions and clitics.
    "I can't won't shouldn't y'all ain't it's he's she'd we'll they're you've",
    "CAN'T Won't DON'T I'M i'm Im cant dont wont",
    "It’s the cat’s toy; they’re here, we’ll see, don’t.",
    "'tis 'twas 'em 'cause ’cause o'clock O'Neil rock'n'roll",
    "gonna gotta wanna lemme gimme dunno",
    "the students' books and James' car, the boss's",
    "''quoted'' ``quoted'' ‘single’ “double” „low“ «guillemets» ‹single›",
    # Abbreviations and acronyms.
    "e.g. i.e. etc. vs. Mr. Mrs. Dr. St. Jan. Feb. U.S. U.K. U.S.A. a.m. p.m.",
    "Washington, D.C. is the capital of the U.S.",
    "He works for Apple Inc. and lives in the U.S.A.",
    "Ph.D. M.D. B.A. No. 5 no. 5 Nos. vol. Vol. pp. fig. Fig. approx.",
    "Mt. Everest and Ft. Worth; Gen. Patton; Sen. Smith; Rep. Jones; Gov. Brown.",
    "N.Y.C. L.A. S.F. Calif. Mass. Ala. Ariz.",
    "10am 10 am 10a.m. 5pm 5p.m. 11:30pm 12p.m.",
    # URLs and emails.
    "Visit https://www.example.com/path?query=1&b=2#frag now.",
    "See http://example.org. Or www.example.co.uk/page, or example.com!",
    "Email me at john.doe@example.com or jane_doe+tag@mail.example.org.",
    "ftp://files.example.net/a/b.txt (mirror: https://mirror.example.net/)",
    "localhost:8080 127.0.0.1 192.168.1.1 8.8.8.8 http://10.0.0.1/x 1.2.3.4:80",
    "https://en.wikipedia.org/wiki/Python_(programming_language)",
    "<https://example.com> [https://example.com] (https://example.com)",
    "user@localhost @mention #hashtag #1 @user_name",
    "a.b c.d.e f.g.h.i example.c example.com.",
    "http://例子.测试 https://münchen.de/straße",
    # Emoticons and emoji.
    ":) :-) :( :-( ;) :D :P :p :/ :-/ <3 </3 :') xD XD ^_^ o.O O.o (: ): =) :]",
    "Great:) Sad:( wow:D lol;) (:smile:)",
    "I love it 😀😀 👍🏽 ❤️ 🇺🇸🇬🇧 👨‍👩‍👧 ✨done✨",
    "¯\\_(ツ)_/¯ (╯°□°)╯︵ ┻━┻ ಠ_ಠ",
    # Numbers, units, currencies.
    "It costs $5.99, €10, £3.50, ¥1000, US$20 and C$15.",
    "5km 10kg 3.5mm 20°C 68°F 100% 50mph 2GB 1,000,000 1.000,50 -3 +4 ±5",
    "1/2 3/4 1-2 3–4 2020-01-01 12:30:45 1e10 0x1F 3.14159 .5 5.",
    "Call 555-123-4567 or (555) 123-4567 or +1 555 123 4567.",
    "The 1990s, '90s, 90's and 1st 2nd 3rd 4th 21st.",
    "10x 2x3 3x4m 4-5pm 5'10\" 6ft 7in",
    "$ 5 5 $ 5$ 5€ €5 5.00$ -$5 ($5)",
    "version 3.8.7, v2.0, Python3.11, ISO-8859-1",
    # Hyphens and dashes.
    "state-of-the-art well-known co-operate re-elect e-mail x-ray T-shirt",
    "A--B A---B A—B A – B A — B A-- --A -- --- ——",
    "mother-in-law's 1-year-old 20-something non-U.S. anti-",
    "pre- and post-war; over- and under-estimated",
    "a~b a<b a>b a=b a/b a:b a+b 1+2 1*2 1^2 a^b",
    # Ellipses and repeated punctuation.
    "Wait... what?! Really?? No!!! Hmm.... Ok..",
    "and so on… really…? yes…… no…",
    "... ...start end... mid...dle a.b.c. ?!?! !!! ???",
    "Hello.World hello.world Hello,World hello,world 3,5 3.5",
    # Brackets and quotes.
    "(hello) [world] {foo} <bar> ((nested)) [[wiki]] {{template}}",
    "\"Hello,\" she said. \"Goodbye.\"",
    "'Hello,' she said. 'Goodbye.'",
    "He said \"no\"; she said 'yes'; they said `maybe`.",
    "(a) (1) (i) 1) a) i) [1] [a]",
    "end.) end.\" end.' end!) end?\" (start.",
    # Non-ASCII punctuation and scripts.
    "¿Qué tal? ¡Hola! «Bonjour» „Hallo“ 「こんにちは」『世界』",
    "日本語のテキスト。中文文本，还有标点！한국어 텍스트입니다.",
    "Привет, мир! Это тест. Γεια σου κόσμε.",
    "مرحبا بالعالم، كيف حالك؟ שלום עולם.",
    "नमस्ते दुनिया। ক্ষমা করবেন।",
    "naïve café résumé coöperate Zürich São Paulo façade",
    "Straße STRASSE ß ﬁ ﬂ ǅ Ǆ ǆ",
    "x²+y³ H₂O 10⁻³ ½ ¼ Ⅻ ①②③",
    "a·b a•b a‧b a․b a‥b a…b",
    "§5 §§ 5§ ¶ † ‡ © ® ™ ° ′ ″",
    "→ ← ↑ ↓ ⇒ ∀x∈A ∑ ∞ ≈ ≠ ≤ ≥",
    # Whitespace.
    "two  spaces", "three   spaces", " leading space", "  two leading", "trailing space ",
    "trailing two  ", "tab\tseparated", "new\nline", "crlf\r\nline", "mixed \t \n mix",
    "\n\nleading newlines", "trailing newlines\n\n", " \n ", "\t", "\n", " ", "  ", "",
    "nbsp\u00a0here", "thin\u2009space", "ideographic\u3000space", "line\u2028sep",
    "para\u2029sep", "nel\u0085here", "fs\u001cgs\u001drs\u001eus\u001f", "zw\u200bsp",
    "bom\ufeffhere", "vt\u000bff\u000c", "word. \nNext", "a \u00a0 b", "a\u00a0\u00a0b",
    # Control characters and oddities.
    "nul\u0000here", "esc\u001b[31mred\u001b[0m", "bell\u0007", "del\u007f",
    "soft\u00adhyphen", "rtl\u200fmark", "a\u0301 combining", "e\u0301te\u0301",
    "\ufffd replacement \ufffd", "private \ue000 use", "\U0001d400 math bold",
    # Special cases adjacent to affixes (the matcher path).
    "x:) (:) :)) ((: :)! \":)\" '':)''",
    "(e.g.) [i.e.] \"etc.\" 'Mr.' (U.S.) U.S.'s",
    "(can't) \"won't\" 'don't' can't. don't!",
    "(10am) 10am. 10am, (5p.m.)",
    "''hello'' ''' '''' `` ``` ' '' \"",
    "Jan.1 Feb.2nd Mar.-Apr.",
    "a.m.) (p.m.) a.m.p.m.",
    "’s ’’ ‘‘ ”” 'S 's 'll 'LL ’ll n't N'T",
    "o.0 0.o o_O O_o",
    "<3<3 :(:( :):) ;);)",
    "C++ C# F# .NET node.js Node.JS",
    "#1 #hashtag @user &amp; &lt; &#39;",
    "--verbose -v --help -h -- --flag=value",
    "path/to/file.txt C:\\Users\\me\\file.txt ~/dir/ ./run.sh ../up",
    "snake_case camelCase PascalCase kebab-case SCREAMING_CASE __dunder__",
    "key=value; a:b; a|b; a\\b; a&b; a*b*c",
]

PREFIXES = ["", "(", "\"", "'", "[", "“", "‘", "$", "¿", "...", "«", "—"]
WORDS = ["word", "can't", "U.S.", "e.g.", "10am", "3.5", "a-b", "x:)", "it's", "Dr.", "http://x.com", "5km", "’s", "A.", "''"]
SUFFIXES = ["", ")", "\"", "'", "]", "”", "’", ".", ",", "!", "?", "...", "…", "'s", "%", ":", ";", "),", ".)", "\")"]


def generated():
    for p, w, s in itertools.product(PREFIXES, WORDS, SUFFIXES):
        if (PREFIXES.index(p) + WORDS.index(w) * 3 + SUFFIXES.index(s)) % 4 == 0:
            yield f"{p}{w}{s}"
    for w1, w2 in itertools.product(WORDS, repeat=2):
        yield f"{w1}-{w2} {w1}/{w2}"


PIECES = ["can't", "e.g.", "U.S.", "10am", "http://", "www.", ".com", "a.m.", "'s", "’s", "n't", ":)",
          "...", "Dr.", "''", "``", "km", "US$", "o.0", "Inc.", "'ll", "1.2.3.4", "@x.org", "-", " ", "  "]
ALPHABET = list("aAbBcCsStTmMdDeEgGiIlLnNoOpPrRuUxXyYzZ0123456789 .,:;'\"()[]{}!?-–—…$€£%&/@#*+=<>_~`^|\\\n\t"
                "\u00a0’‘“”«»°²éßÄ😀👍🏽\u200b\u0301")


def random_cases(seed=0, n=400):
    """Seeded random strings: rule-relevant pieces and characters, then arbitrary code points."""
    rng = random.Random(seed)
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 12)):
            if rng.random() < 0.35:
                parts.append(rng.choice(PIECES))
            else:
                parts.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 4))))
        yield "".join(parts)
    spaces = " \n\t\r\x0b\x0c\x1c\x1f\x85\xa0\u2000\u2028\u3000"
    for _ in range(n // 2):
        chars = []
        for _ in range(rng.randint(0, 25)):
            r = rng.random()
            if r < 0.3:
                chars.append(chr(rng.randint(0x20, 0x7E)))
            elif r < 0.4:
                chars.append(rng.choice(spaces))
            elif r < 0.8:
                cp = rng.randint(0xA0, 0x2FFFF)
                chars.append(chr(cp) if not 0xD800 <= cp < 0xE000 else "x")
            else:
                chars.append(rng.choice("0123456789.,-'’s"))
        yield "".join(chars)


def main():
    pipeline = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DIR
    nlp = spacy.load(pipeline)
    # A tokenizer over a blank vocabulary: lexemes have no norm, so a token's norm is set
    # exactly when a special case set it.
    bare = Tokenizer(Vocab()).from_disk(pipeline / "tokenizer")
    texts = list(dict.fromkeys([*CASES, *generated(), *random_cases()]))
    with OUT.open("w", encoding="utf-8") as out:
        for text in texts:
            doc = nlp.tokenizer(text)
            words = [t.text for t in doc]
            ws = [bool(t.whitespace_) for t in doc]
            bare_doc = bare(text)
            assert [t.text for t in bare_doc] == words, text
            norms = [t.norm_ or None for t in bare_doc]
            out.write(json.dumps({"text": text, "words": words, "ws": ws, "norms": norms}, ensure_ascii=False) + "\n")
    print(f"wrote {len(texts)} cases to {OUT}")


if __name__ == "__main__":
    main()
