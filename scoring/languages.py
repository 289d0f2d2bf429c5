"""Language codes: the one table every part of hume reads a language tag through.

A language reaches hume written in three ways: a study spec or a command line gives a short code
(``en``) or an MTEB tag (``eng-Latn``), and MTEB result files give tags. Reports, exports,
annotator policies and annotator matching must all agree on what a code means, so they all go
through :func:`normalise_language` (the ISO 639-3 code of any of these) and its one table.

The two-letter table is mteb's own ISO 639-1 → 639-3 table (``mteb/languages/iso_639_1_to_3.json``,
copied here so that ``scoring`` needs no mteb at run time, which is an optional, slow-to-import
dependency; a test keeps the copy equal to the installed mteb's). One choice is hume's, not
ISO's: Norwegian is Bokmål. ISO maps ``no`` to the macrolanguage ``nor``; HUME tags its Norwegian
subsets ``nob-Latn`` (MTEB's tag), so ``no``, ``nor`` and ``nb`` all mean ``nob`` here, and an
annotator policy or a ``--languages`` filter written ``no`` covers them.
"""

from __future__ import annotations

from collections.abc import Mapping

#: ISO 639-1 → ISO 639-3, as mteb ships it (see the module docstring; hume's choices are below).
_ISO_639_1_TO_3: Mapping[str, str] = {
    "aa": "aar", "ab": "abk", "ae": "ave", "af": "afr", "ak": "aka", "am": "amh", "an": "arg",
    "ar": "ara", "as": "asm", "av": "ava", "ay": "aym", "az": "aze", "ba": "bak", "be": "bel",
    "bg": "bul", "bi": "bis", "bm": "bam", "bn": "ben", "bo": "bod", "br": "bre", "bs": "bos",
    "ca": "cat", "ce": "che", "ch": "cha", "co": "cos", "cr": "cre", "cs": "ces", "cu": "chu",
    "cv": "chv", "cy": "cym", "da": "dan", "de": "deu", "dv": "div", "dz": "dzo", "ee": "ewe",
    "el": "ell", "en": "eng", "eo": "epo", "es": "spa", "et": "est", "eu": "eus", "fa": "fas",
    "ff": "ful", "fi": "fin", "fj": "fij", "fo": "fao", "fr": "fra", "fy": "fry", "ga": "gle",
    "gd": "gla", "gl": "glg", "gn": "grn", "gu": "guj", "gv": "glv", "ha": "hau", "he": "heb",
    "hi": "hin", "ho": "hmo", "hr": "hrv", "ht": "hat", "hu": "hun", "hy": "hye", "hz": "her",
    "ia": "ina", "id": "ind", "ie": "ile", "ig": "ibo", "ii": "iii", "ik": "ipk", "io": "ido",
    "is": "isl", "it": "ita", "iu": "iku", "ja": "jpn", "jv": "jav", "ka": "kat", "kg": "kon",
    "ki": "kik", "kj": "kua", "kk": "kaz", "kl": "kal", "km": "khm", "kn": "kan", "ko": "kor",
    "kr": "kau", "ks": "kas", "ku": "kur", "kv": "kom", "kw": "cor", "ky": "kir", "la": "lat",
    "lb": "ltz", "lg": "lug", "li": "lim", "ln": "lin", "lo": "lao", "lt": "lit", "lu": "lub",
    "lv": "lav", "mg": "mlg", "mh": "mah", "mi": "mri", "mk": "mkd", "ml": "mal", "mn": "mon",
    "mr": "mar", "ms": "msa", "mt": "mlt", "my": "mya", "na": "nau", "nb": "nob", "nd": "nde",
    "ne": "nep", "ng": "ndo", "nl": "nld", "nn": "nno", "no": "nor", "nr": "nbl", "nv": "nav",
    "ny": "nya", "oc": "oci", "oj": "oji", "om": "orm", "or": "ori", "os": "oss", "pa": "pan",
    "pi": "pli", "pl": "pol", "ps": "pus", "pt": "por", "qu": "que", "rm": "roh", "rn": "run",
    "ro": "ron", "ru": "rus", "rw": "kin", "sa": "san", "sc": "srd", "sd": "snd", "se": "sme",
    "sg": "sag", "si": "sin", "sk": "slk", "sl": "slv", "sm": "smo", "sn": "sna", "so": "som",
    "sq": "sqi", "sr": "srp", "ss": "ssw", "st": "sot", "su": "sun", "sv": "swe", "sw": "swa",
    "ta": "tam", "te": "tel", "tg": "tgk", "th": "tha", "ti": "tir", "tk": "tuk", "tl": "tgl",
    "tn": "tsn", "to": "ton", "tr": "tur", "ts": "tso", "tt": "tat", "tw": "twi", "ty": "tah",
    "ug": "uig", "uk": "ukr", "ur": "urd", "uz": "uzb", "ve": "ven", "vi": "vie", "vo": "vol",
    "wa": "wln", "wo": "wol", "xh": "xho", "yi": "yid", "yo": "yor", "za": "zha", "zh": "zho",
    "zu": "zul",
}  # fmt: skip

#: hume's choices over ISO (see the module docstring): Norwegian is Bokmål, as HUME tags it.
HUME_CHOICES: Mapping[str, str] = {"no": "nob", "nor": "nob", "nb": "nob"}

#: Individual languages an annotator of their macrolanguage reads as that language: HUME counts
#: Standard Arabic (``arb``, SIB-200's tag) as Arabic (``ara``). Only annotator matching uses it;
#: reports keep ``arb`` apart, as MTEB's result files do.
_READ_AS: Mapping[str, str] = {"arb": "ara"}


def language_code(tag: str) -> str:
    """The base code of a tag as written, lower case.

    ``"eng-Latn"`` → ``"eng"``, ``"en"`` → ``"en"``, ``"eng_Latn"`` → ``"eng"`` (how MTEB result
    files name a subset's language).

    Args:
        tag: a language code or tag.

    Returns:
        The code before any script or region.
    """
    return tag.split("-")[0].split("_")[0].lower()


def normalise_language(code: str) -> str:
    """The ISO 639-3 code of a short code or tag.

    ``en``, ``eng`` and ``eng-Latn`` → ``eng``; ``no``, ``nor``, ``nb`` and ``nob-Latn`` →
    ``nob``. Unknown codes pass through lower-cased.

    Args:
        code: a language code or tag.

    Returns:
        The three-letter code.
    """
    base = language_code(code.strip())
    if base in HUME_CHOICES:
        return HUME_CHOICES[base]
    return _ISO_639_1_TO_3.get(base, base)


def annotator_language(tag: str) -> str:
    """The language an annotator must read for items tagged ``tag``.

    Its ISO 639-3 code, with Standard Arabic read as Arabic (``arb-Arab`` → ``ara``).

    Args:
        tag: a subset's language tag.

    Returns:
        The three-letter code.
    """
    code = normalise_language(tag)
    return _READ_AS.get(code, code)


def iso_639_1_table() -> dict[str, str]:
    """The two-letter table as copied from mteb, before hume's choices.

    For the test that keeps it equal to the installed mteb's.

    Returns:
        ``{two-letter code: three-letter code}``, a copy.
    """
    return dict(_ISO_639_1_TO_3)


__all__ = [
    "HUME_CHOICES",
    "annotator_language",
    "iso_639_1_table",
    "language_code",
    "normalise_language",
]
