"""Synthesis benchmark and real-data run: a five-section overview of the notmuch mail.

    python -m benchmarks.synthesis --sources 1000 --runs 5

Fills a fresh embedded SurrealDB store (surrealkv, in-process index, ONNX
MiniLM: what ``tessera serve`` runs) through the real write path
(``MemoryService.remember``, as the owner): every notmuch mailing-list
message of the evaluation data as one email source, then LongMemEval
haystack turns as notes until ``--sources`` sources exist (unrelated memory
the retrieval must look past). Then it times ``synthesize`` (plan, sections,
extractive draft, verify; nothing remembered) on an overview of the mailing
list, ``--runs`` times, and reports per-stage and end-to-end wall time,
citation coverage and the verifier's supported share. The last run's
verification, first section and every cited sentence beside its cited
source go to benchmarks/out/ for a hand spot-check. Progress on stderr; the
figures are one JSON object on the last line of stdout.
"""

import argparse
import asyncio
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import msgspec

from application.memory.commands import RememberRequest
from application.services import Services
from application.synthesis.commands import PlanRequest
from benchmarks._data import DATA_HELP, load_corpus
from benchmarks._mail import DEFAULT_MAIL, load_mail
from benchmarks._stats import code_version, machine_info, progress
from benchmarks._wiring import make_embedder, make_index, make_services, make_store, owner_key
from domain.policy import Surface
from domain.scopes import SourceType
from domain.synthesis.outline import OutputType

__all__ = ["main"]

OUT_DIR = Path(__file__).resolve().parent / "out"
TOPIC = "notmuch mail indexing and tagging"


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.synthesis", description=__doc__)
    p.add_argument("--sources", type=int, default=1000, help="sources in the store (>= mail)")
    p.add_argument("--runs", type=int, default=5, help="timed end-to-end syntheses")
    p.add_argument("--topic", default=TOPIC)
    p.add_argument(
        "--also", action="append", default=[], help="another topic, run once for the spot-check"
    )
    p.add_argument("--mail", type=Path, default=DEFAULT_MAIL)
    p.add_argument("--data", type=Path, help=DATA_HELP)
    return p.parse_args(argv)


async def _fill(services: Services, key: str, args: argparse.Namespace) -> dict[str, int]:
    mail = load_mail(args.mail)
    fillers = load_corpus(args.data).turns[: max(0, args.sources - len(mail))]
    org = services.home_org_id
    started = time.perf_counter()
    for n, m in enumerate(mail):
        _, ctx = await services.session(key, Surface.JOB)
        await services.memory.remember(
            RememberRequest(
                org_id=org,
                content=m.content,
                source_type=SourceType.EMAIL,
                source_uri=f"mid:{m.message_id}" if m.message_id else None,
                occurred_at=m.sent_at,
            ),
            ctx,
        )
        if n % 50 == 0:
            progress(f"mail {n}/{len(mail)}")
    for n, turn in enumerate(fillers):
        _, ctx = await services.session(key, Surface.JOB)
        await services.memory.remember(RememberRequest(org_id=org, content=turn), ctx)
        if n % 200 == 0:
            progress(f"notes {n}/{len(fillers)}")
    await services.memory.lane.drain()  # drafts retrieve by meaning too
    progress(f"filled {len(mail) + len(fillers)} sources in {time.perf_counter() - started:.1f} s")
    return {"mail": len(mail), "notes": len(fillers), "sources": len(mail) + len(fillers)}


async def _timed_run(services: Services, key: str, topic: str) -> tuple[dict[str, float], str]:
    s = services.synthesis
    org = services.home_org_id
    times: dict[str, float] = {}
    t0 = time.perf_counter()
    _, ctx = await services.session(key, Surface.JOB)
    plan = await s.plan(PlanRequest(org_id=org, query=topic, output_type=OutputType.OVERVIEW), ctx)
    times["plan"] = time.perf_counter() - t0
    for stage in ("sections", "draft", "verify"):
        t = time.perf_counter()
        _, ctx = await services.session(key, Surface.JOB)
        await getattr(s, stage)(org, plan.run_id, ctx)
        times[stage] = time.perf_counter() - t
    times["total"] = time.perf_counter() - t0
    return times, plan.run_id


async def _report(services: Services, key: str, run_id: str, n: int) -> dict[str, object]:
    """A run's verification, first section and cited sentences beside their sources."""
    s = services.synthesis
    org = services.home_org_id
    _, ctx = await services.session(key, Surface.JOB)
    packs = (await s.sections(org, run_id, ctx)).sections
    _, ctx = await services.session(key, Surface.JOB)
    draft = await s.draft(org, run_id, ctx)
    _, ctx = await services.session(key, Surface.JOB)
    verification = await s.verify(org, run_id, ctx)
    OUT_DIR.mkdir(exist_ok=True)
    (OUT_DIR / f"synthesis_overview_{n}.md").write_text(draft.markdown, encoding="utf-8")
    lines = []
    for section, pack in zip(draft.sections, packs, strict=True):
        by_source: dict[str, str] = {}
        for x in pack.snippets:
            by_source[x.source_id] = by_source.get(x.source_id, "") + " … " + x.text
        for sentence in section.sentences:
            for cited in sentence.citations:
                lines.append(
                    f"## {section.title}\nSENTENCE: {sentence.text}\n"
                    f"SOURCE {cited}: {' '.join(by_source.get(cited, '').split())[:2500]}\n"
                )
    with (OUT_DIR / "synthesis_spotcheck.txt").open("a", encoding="utf-8") as spot:
        spot.write("\n".join(lines) + "\n")
    first = draft.markdown.split("\n## ")[1] if "\n## " in draft.markdown else ""
    return {
        "verification": msgspec.to_builtins(verification),
        "first_section": "## " + first.strip(),
    }


async def _main(args: argparse.Namespace) -> dict[str, object]:
    tmp = Path(tempfile.mkdtemp(prefix="tessera-synth-"))
    store = make_store(f"surrealkv://{tmp / 'db'}")
    embedder = make_embedder()
    services = make_services(store, make_index("inprocess", store), embedder, "bench")
    try:
        await services.open(Surface.CLI)
        key = await owner_key(services)
        counts = await _fill(services, key, args)
        await _timed_run(services, key, args.topic)  # warm: query vectors, index, model
        runs = []
        run_id = ""
        for n in range(args.runs):
            times, run_id = await _timed_run(services, key, args.topic)
            runs.append(times)
            progress(f"run {n + 1}: {times['total'] * 1000:.0f} ms")
        (OUT_DIR / "synthesis_spotcheck.txt").unlink(missing_ok=True)
        report = await _report(services, key, run_id, 0)
        others = []
        for n, topic in enumerate(args.also, start=1):
            _, other = await _timed_run(services, key, topic)
            others.append({"topic": topic, **await _report(services, key, other, n)})
        stages = {
            stage: {
                "median_ms": round(statistics.median(r[stage] for r in runs) * 1000, 1),
                "max_ms": round(max(r[stage] for r in runs) * 1000, 1),
            }
            for stage in ("plan", "sections", "draft", "verify", "total")
        }
        return {
            "benchmark": "synthesis",
            "topic": args.topic,
            "corpus": counts,
            "runs": args.runs,
            "stages": stages,
            **report,
            "also": others,
            "machine": machine_info(),
            "code": code_version(),
        }
    finally:
        await services.close()
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    result = asyncio.run(_main(args))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
