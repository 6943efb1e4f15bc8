#!/usr/bin/env python3
"""A keyword baseline for TACRED-style relation extraction, served over metamorph's JSONL
subprocess protocol.

It reads the tokens, the head and tail spans and their entity types, and answers a TACRED label
(`per:spouse`, `org:city_of_headquarters`, ..., or `no_relation`) from a few hand-written rules:
trigger words in the tokens between the two arguments (and a short window around them), checked
against the argument types, with kinship direction read off "'s" and "of". It is a weak, honest
baseline (no learning, no syntax), bundled so that `cargo xtask pipeline` judges the SIT4RE
relation-extraction cases on any machine; replace it with your own model by changing
`[[execute.models]]` in metamorph.toml. Untyped arguments (FewRel) are treated as any type the
rule needs, so its answers there are TACRED labels all the same. Standard library only.

Protocol: one JSON request per line on stdin, one JSON response per line on stdout, matched by
"id". Logs go to stderr.
"""
import json
import sys

PLACE = {"CITY", "STATE_OR_PROVINCE", "COUNTRY", "LOCATION"}
PLACE_LEVEL = {"CITY": "city", "STATE_OR_PROVINCE": "stateorprovince", "COUNTRY": "country"}

SPOUSE = {"wife", "husband", "married", "spouse", "widow", "widower", "marry", "marriage"}
CHILD = {"son", "sons", "daughter", "daughters", "child", "children", "stepson", "stepdaughter"}
PARENT = {"father", "mother", "parent", "parents", "dad", "mom", "stepfather", "stepmother"}
SIBLING = {"brother", "brothers", "sister", "sisters", "sibling", "siblings"}
OTHER_FAMILY = {"cousin", "uncle", "aunt", "nephew", "niece", "grandson", "granddaughter",
                "grandfather", "grandmother", "brother-in-law", "sister-in-law", "in-law"}
EMPLOYEE = {"works", "worked", "work", "employee", "employed", "joined", "spokesman",
            "spokeswoman", "analyst", "official", "executive", "chief", "ceo", "chairman",
            "president", "director", "head", "manager", "secretary", "minister", "leader",
            "of", "at", "for"}
TOP_MEMBER = {"ceo", "chairman", "chairwoman", "president", "chief", "director", "head",
              "leader", "founder", "executive", "secretary-general", "chair"}
SCHOOL = {"studied", "graduated", "graduate", "attended", "alumnus", "alumna", "student"}
FOUNDED = {"founded", "founder", "co-founded", "cofounded", "established", "created", "started"}
HEADQUARTERS = {"headquartered", "headquarters", "based", "hq", "head-quartered"}
SUBSIDIARY = {"subsidiary", "unit", "division", "owned", "affiliate", "arm"}
MEMBER = {"member", "members", "joined"}
BIRTH = {"born", "birth", "native", "birthplace"}
DEATH = {"died", "dies", "death", "killed", "dead"}
RESIDENCE = {"lives", "lived", "living", "resident", "resides", "home", "moved", "settled"}
AGE = {"age", "aged", "old"}


def words(tokens, start, end):
    return [t.lower() for t in tokens[max(start, 0):max(min(end, len(tokens)), 0)]]


def kin_direction(tokens, first, second):
    """Who is whose kin: 'second' when the kin word describes the second argument ("A 's son
    B", "A , whose son B"), 'first' when it describes the first ("A , son of B", "A is B 's son",
    "A is the son of B")."""
    between = words(tokens, first["end"], second["start"])
    after = words(tokens, second["end"], second["end"] + 3)
    if after[:1] == ["'s"]:
        return "first", after[1:2]
    for i, w in enumerate(between):
        if i + 1 < len(between) and between[i + 1] == "of":
            return "first", [w]
    return "second", between


def kinship(tokens, head, tail):
    first, second = (head, tail) if head["start"] < tail["start"] else (tail, head)
    described, cue = kin_direction(tokens, first, second)
    window = set(words(tokens, first["end"], second["start"])) | set(cue)
    # The argument the kin word describes, as "tail" or "head".
    if described == "second":
        kin_of_other = "tail" if second is tail else "head"
    else:
        kin_of_other = "tail" if first is tail else "head"
    if window & SPOUSE:
        return "per:spouse"
    if window & SIBLING:
        return "per:siblings"
    if window & OTHER_FAMILY:
        return "per:other_family"
    if window & CHILD:
        return "per:children" if kin_of_other == "tail" else "per:parents"
    if window & PARENT:
        return "per:parents" if kin_of_other == "tail" else "per:children"
    return None


def is_alias(tokens, head, tail):
    """'A -LRB- B -RRB-' or 'B -LRB- A -RRB-', or 'A , also known as B'."""
    first, second = (head, tail) if head["start"] < tail["start"] else (tail, head)
    between = words(tokens, first["end"], second["start"])
    return between in (["-lrb-"], ["("]) or "known" in between or "aka" in between


def classify(tokens, head, tail):
    if not tokens or not head or not tail:
        return "no_relation"
    h_type = head.get("entity_type") or "ANY"
    t_type = tail.get("entity_type") or "ANY"
    lo = min(head["end"], tail["end"])
    hi = max(head["start"], tail["start"])
    between = set(words(tokens, lo, hi))
    around = between | set(words(tokens, min(head["start"], tail["start"]) - 3, lo)) | set(
        words(tokens, hi, max(head["end"], tail["end"]) + 3))
    typed = lambda t, wanted: t == "ANY" or t in wanted

    if typed(h_type, {"PERSON"}):
        if typed(t_type, {"PERSON"}):
            if is_alias(tokens, head, tail):
                return "per:alternate_names"
            rel = kinship(tokens, head, tail)
            if rel:
                return rel
        if typed(t_type, {"ORGANIZATION"}):
            if around & SCHOOL or any(w in {"university", "college", "school"} for w in words(tokens, tail["start"], tail["end"])):
                return "per:schools_attended" if around & SCHOOL else "per:employee_of"
            if between & EMPLOYEE and len(between) <= 8:
                return "per:employee_of"
        if t_type in PLACE_LEVEL:
            level = PLACE_LEVEL[t_type]
            if around & BIRTH:
                return "per:%s_of_birth" % level
            if around & DEATH:
                return "per:%s_of_death" % level
            if around & RESIDENCE or between <= {"in", "of", ","}:
                plural = {"city": "cities", "stateorprovince": "stateorprovinces", "country": "countries"}
                return "per:%s_of_residence" % plural[level]
        if t_type == "NATIONALITY":
            return "per:origin"
        if t_type == "TITLE":
            return "per:title"
        if t_type == "RELIGION":
            return "per:religion"
        if t_type == "CRIMINAL_CHARGE":
            return "per:charges"
        if t_type == "CAUSE_OF_DEATH":
            return "per:cause_of_death"
        if t_type == "NUMBER" and (around & AGE or between <= {","}):
            return "per:age"
        if t_type == "DATE":
            if around & BIRTH:
                return "per:date_of_birth"
            if around & DEATH:
                return "per:date_of_death"
    if typed(h_type, {"ORGANIZATION"}):
        if typed(t_type, {"ORGANIZATION"}) and is_alias(tokens, head, tail):
            return "org:alternate_names"
        if typed(t_type, {"PERSON"}):
            if around & FOUNDED:
                return "org:founded_by"
            if around & TOP_MEMBER:
                return "org:top_members/employees"
        if t_type in PLACE_LEVEL and (around & HEADQUARTERS or between <= {"in", ","}):
            level = PLACE_LEVEL[t_type]
            return "org:%s_of_headquarters" % level
        if typed(t_type, {"ORGANIZATION"}):
            if around & SUBSIDIARY:
                # "A , a unit of B": B is A's parent; "A 's unit B": B is A's subsidiary.
                return "org:parents" if "of" in between else "org:subsidiaries"
            if around & MEMBER:
                return "org:member_of"
        if t_type == "DATE" and around & FOUNDED:
            return "org:founded"
        if t_type == "NUMBER" and around & {"employees", "workers", "staff", "members"}:
            return "org:number_of_employees/members"
        if t_type == "URL":
            return "org:website"
    return "no_relation"


def predict(request):
    if request.get("task") != "relation":
        return {"id": request["id"], "error": "this baseline only answers relation"}
    label = classify(request.get("tokens") or [], request.get("head"), request.get("tail"))
    return {"id": request["id"], "label": label}


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            response = predict(json.loads(line))
        except Exception as error:  # report, keep serving
            response = {"id": json.loads(line).get("id", ""), "error": str(error)}
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
