"""``tessera synthesize``: a cited document from memory, all stages or one at a time.

``tessera synthesize "topic" [--type ...] [--audience ...] [--out doc.md]``
runs every stage and prints the verification and, per section, the sources
the draft left out and why (the Markdown goes to --out);
``tessera synthesize plan "topic"`` and ``tessera synthesize
sections|draft|verify|remember RUN_ID`` run one stage. Every call goes
through the same backend (and so the same HTTP routes) as the other commands.
"""

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from domain.errors import InvalidInputError
from domain.reasons import ReasonCode
from domain.synthesis.outline import OutputType

if TYPE_CHECKING:
    from entrypoints.backends import Backend

__all__ = ["add_synthesis_parser", "run_synthesis"]

_STAGES = ("plan", "sections", "draft", "verify", "remember")


def add_synthesis_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "synthesize",
        help="a cited document from memory (all stages, or: plan TOPIC | STAGE RUN_ID)",
    )
    parser.add_argument("words", nargs="+", help='"topic", or a stage and its topic or run id')
    parser.add_argument(
        "--type", dest="output_type", choices=[t.value for t in OutputType], default="overview"
    )
    parser.add_argument("--audience", help="principal:<id> or space:<scope>[/<key>]")
    parser.add_argument("--outline", action="append", help="a section title (repeatable)")
    parser.add_argument("--drafter", choices=["extractive", "llm"], default="extractive")
    parser.add_argument(
        "--remember", action="store_true", help="remember the artifact if it passes"
    )
    parser.add_argument("--out", type=Path, help="write the Markdown here")
    parser.add_argument("--json", action="store_true", help="print JSON")


def _plan_body(args: argparse.Namespace, query: str) -> dict[str, Any]:
    body: dict[str, Any] = {"query": query, "output_type": args.output_type}
    if args.audience:
        body["audience"] = args.audience
    if args.outline:
        body["outline"] = args.outline
    return body


def _print_verification(v: dict[str, Any]) -> None:
    hidden = v["hidden_counts"]
    print(
        f"Verification: {v['status']}; citation coverage {v['citation_coverage']:.0%}, "
        f"supported {v['supported_share']:.0%} of {v['sentences']} sentence(s); "
        f"hidden {hidden['hidden']}, withheld {hidden['denied']}"
    )
    for gap in v["gaps"]:
        print(f"  gap: {gap}")
    for claim in v["unsupported_claims"]:
        print(f"  unsupported ({claim['reason']}) in {claim['section']}: {claim['sentence']}")


def _write(args: argparse.Namespace, markdown: str) -> None:
    if args.out:
        args.out.write_text(markdown, encoding="utf-8")
        print(f"Wrote {args.out}")
    else:
        print(markdown)


def _print_left_out(draft: dict[str, Any]) -> None:
    """Per section, the pack's sources the draft does not quote, and why."""
    for section in draft["sections"]:
        for left in section.get("left_out", []):
            print(
                f"  left out of {section['title']}: source {left['source_id']} ({left['detail']})"
            )


def _print_plan(plan: dict[str, Any]) -> None:
    sections = plan["outline"]
    print(
        f"Run {plan['run_id']}: {plan['output_type']} of “{plan['query']}”, "
        f"{len(sections)} section(s)"
    )
    for n, section in enumerate(sections, start=1):
        found = len(section["expected_source_ids"])
        print(f"{n:>2}. {section['title']}: {section['needs']} ({found} source(s) found)")
    print(f"Next: tessera synthesize sections {plan['run_id']}")


def _print_sections(packs: dict[str, Any]) -> None:
    print(f"Run {packs['run_id']}: evidence for {len(packs['sections'])} section(s)")
    for section in packs["sections"]:
        held = section["hidden_count"] + section["denied_count"]
        withheld = f", {held} withheld" if held else ""
        stale = f", {len(section['stale_source_ids'])} stale" if section["stale_source_ids"] else ""
        print(f"\n{section['title']}: {len(section['snippets'])} snippet(s){withheld}{stale}")
        for snippet in section["snippets"]:
            words = " ".join(snippet["text"].split())
            print(f"  - {words[:160]}{'…' if len(words) > 160 else ''}")
            print(f"    source {snippet['source_id']}")
    print(f"\nNext: tessera synthesize draft {packs['run_id']}")


def _print_remembered(artifact: dict[str, Any]) -> None:
    print(
        f"Remembered the document of run {artifact['run_id']} as source "
        f"{artifact['source_id']} (verification: {artifact['status']})"
    )


_STAGE_PRINTERS = {"plan": _print_plan, "sections": _print_sections, "remember": _print_remembered}


async def run_synthesis(backend: "Backend", args: argparse.Namespace) -> int:
    words: list[str] = args.words
    if words[0] in _STAGES and len(words) == 2:
        stage, value = words
        if stage == "plan":
            result = await backend.call("POST", "/api/synthesize/plan", _plan_body(args, value))
        else:
            body: dict[str, Any] = {"run_id": value}
            if stage == "draft":
                body["drafter"] = args.drafter
            result = await backend.call("POST", f"/api/synthesize/{stage}", body)
        if args.json:
            print(json.dumps(result))
        elif stage == "draft":
            _write(args, result["markdown"])
            _print_left_out(result)
        elif stage == "verify":
            _print_verification(result)
        else:
            _STAGE_PRINTERS[stage](result)
        return 0
    if words[0] in _STAGES and len(words) > 2:
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, f"{words[0]} takes one argument")
    body = {**_plan_body(args, " ".join(words)), "drafter": args.drafter}
    body["remember"] = bool(args.remember)
    result = await backend.call("POST", "/api/synthesize", body)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"Run {result['run_id']}")
    _write(args, result["draft"]["markdown"])
    _print_verification(result["verification"])
    _print_left_out(result["draft"])
    if result.get("artifact"):
        print(f"Remembered as source {result['artifact']['source_id']}")
    return 0
