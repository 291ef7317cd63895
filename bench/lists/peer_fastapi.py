"""The peer of bench/lists.ts: a one-file FastAPI + asyncpg service that answers
GET /api/v1/opportunities the plain way, a page query plus count(*) per request, no cache, no
key check, no quota. It is the yardstick of "how fast is the obvious service on these rows".

Run: DATABASE_URL=postgres://... python3 -m uvicorn peer_fastapi:app --port 8099 (from bench/)
"""

import os
from typing import Optional

import asyncpg
from fastapi import FastAPI, Query

app = FastAPI()
COLUMNS = (
    "id, platform, channel_name, title, slug, recommendation, score, pain_point_intensity, "
    "willingness_to_pay_score, tech_difficulty, sustainability_score, target_audience, "
    "monetization_model, evidence_count, merged_from_count, is_online_deliverable, created_at"
)


@app.on_event("startup")
async def startup() -> None:
    app.state.pool = await asyncpg.create_pool(
        os.environ["DATABASE_URL"], min_size=4, max_size=int(os.environ.get("POOL", "10"))
    )


@app.get("/api/v1/opportunities")
async def opportunities(
    platform: Optional[str] = None,
    channel: Optional[str] = None,
    category: Optional[str] = None,
    theme: Optional[str] = None,
    min_score: int = Query(0, ge=0, le=100),
    recommendation: Optional[str] = None,
    online_only: bool = True,
    min_pain_point_intensity: Optional[int] = Query(None, ge=0, le=10),
    min_willingness_to_pay: Optional[int] = Query(None, ge=0, le=10),
    max_tech_difficulty: Optional[int] = Query(None, ge=0, le=10),
    min_sustainability: Optional[int] = Query(None, ge=0, le=10),
    sort: str = "score",
    page: int = Query(1, ge=1),
    page_size: int = Query(20, ge=1, le=100),
):
    where, args = ["true"], []
    if online_only:
        where.append("is_online_deliverable")
    if platform:
        args.append(platform)
        where.append(f"lower(platform) = lower(${len(args)})")
    if channel:
        args.append(channel)
        where.append(f"channel_name = ${len(args)}")
    if category:
        args.append(category)
        where.append(
            f"theme_id in (select t.id from themes t join categories c on c.id = t.category_id "
            f"where c.slug = ${len(args)})"
        )
    if theme:
        args.append(theme)
        where.append(f"theme_id in (select t.id from themes t where t.slug = ${len(args)})")
    if min_score > 0:
        args.append(min_score)
        where.append(f"score >= ${len(args)}")
    if recommendation:
        args.append(recommendation)
        where.append(f"recommendation = ${len(args)}")
    for column, op, value in (
        ("pain_point_intensity", ">=", min_pain_point_intensity),
        ("willingness_to_pay_score", ">=", min_willingness_to_pay),
        ("tech_difficulty", "<=", max_tech_difficulty),
        ("sustainability_score", ">=", min_sustainability),
    ):
        if value is not None:
            args.append(value)
            where.append(f"{column} {op} ${len(args)}")
    first = {
        "pain_point_intensity": "pain_point_intensity desc, ",
        "willingness_to_pay": "willingness_to_pay_score desc, ",
        "tech_difficulty": "tech_difficulty asc, ",
        "sustainability": "sustainability_score desc, ",
    }.get(sort, "")
    clause = " and ".join(where)
    async with app.state.pool.acquire() as conn:
        rows = await conn.fetch(
            f"select {COLUMNS} from opportunities where {clause} "
            f"order by {first}score desc, created_at desc, id desc "
            f"limit {page_size} offset {(page - 1) * page_size}",
            *args,
        )
        total = await conn.fetchval(f"select count(*) from opportunities where {clause}", *args)
    return {
        "items": [dict(r) for r in rows],
        "total": total,
        "page": page,
        "page_size": page_size,
    }


@app.get("/healthz")
async def healthz():
    return {"status": "ok"}
