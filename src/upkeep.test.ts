import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectLogs } from "../test/support/expected-logs";
import worker from "./index";
import { deleteInBatches, runUpkeep, type UpkeepTask } from "./platform/upkeep";
import { LOGIN_LOCKOUT } from "./features/partners/login";
import { upkeepTasks } from "./upkeep";

const NOW = Date.parse("2026-06-01T12:00:00Z");
const MINUTE = 60_000;

const seed = async () => {
  await env.DB.batch([
    env.DB.prepare("DELETE FROM login_failure_counters"),
    env.DB.prepare("DELETE FROM payment_setup_tokens"),
    env.DB.prepare("DELETE FROM radar_signals"),
    env.DB.prepare("DELETE FROM quotes"),
    env.DB.prepare(
      "INSERT INTO quotes (id, partner_id, expires_at, body) VALUES ('q-expired', 'demo', ?, '{}'), ('q-live', 'demo', ?, '{}')",
    ).bind(NOW, NOW + MINUTE),
    // Window and lock both over: removed. Lock still running, or window still open: kept.
    env.DB.prepare(
      "INSERT INTO login_failure_counters (email, scope, attempt_id, failures, window_started_at, locked_until) VALUES (?, 'ip:192.0.2.1', 'attempt', 2, ?, NULL)",
    ).bind("stale@x.test", NOW - LOGIN_LOCKOUT.windowMs - 1),
    env.DB.prepare(
      "INSERT INTO login_failure_counters (email, scope, attempt_id, failures, window_started_at, locked_until) VALUES (?, 'ip:192.0.2.1', 'attempt', 5, ?, ?)",
    ).bind("unlocked@x.test", NOW - 2 * LOGIN_LOCKOUT.windowMs, NOW - 1),
    env.DB.prepare(
      "INSERT INTO login_failure_counters (email, scope, attempt_id, failures, window_started_at, locked_until) VALUES (?, 'ip:192.0.2.1', 'attempt', 5, ?, ?)",
    ).bind("locked@x.test", NOW - LOGIN_LOCKOUT.windowMs - 1, NOW + 5 * MINUTE),
    env.DB.prepare(
      "INSERT INTO login_failure_counters (email, scope, attempt_id, failures, window_started_at, locked_until) VALUES (?, 'ip:192.0.2.1', 'attempt', 1, ?, NULL)",
    ).bind("fresh@x.test", NOW - MINUTE),
    ...[
      ["expired", NOW - MINUTE, null],
      ["expired-used", NOW - 1, NOW - 10 * MINUTE],
      ["at-now", NOW, null],
      ["live", NOW + MINUTE, null],
      ["live-used", NOW + MINUTE, NOW - MINUTE],
    ].map(([hash, expiresAt, usedAt]) =>
      env.DB.prepare(
        "INSERT INTO payment_setup_tokens (token_hash, partner_id, actor_id, session_id, expires_at, used_at) VALUES (?, 'demo', 'a', 's', ?, ?)",
      ).bind(hash, expiresAt, usedAt),
    ),
    ...[
      ["sess-expired", NOW - 1],
      ["sess-live", NOW + MINUTE],
    ].map(([session, expiresAt]) =>
      env.DB.prepare(
        "INSERT INTO radar_signals (partner_id, session_id, signals, received_at, expires_at_ms) VALUES ('demo', ?, '{}', '2026-05-31T12:00:00Z', ?)",
      ).bind(session, expiresAt),
    ),
  ]);
};

const remaining = async () => ({
  loginFailures: (
    await env.DB.prepare("SELECT email FROM login_failure_counters ORDER BY email").all<{ email: string }>()
  ).results.map((r) => r.email),
  setupTokens: (
    await env.DB.prepare("SELECT token_hash FROM payment_setup_tokens ORDER BY token_hash").all<{
      token_hash: string;
    }>()
  ).results.map((r) => r.token_hash),
  radarSignals: (
    await env.DB.prepare("SELECT session_id FROM radar_signals ORDER BY session_id").all<{ session_id: string }>()
  ).results.map((r) => r.session_id),
  quotes: (await env.DB.prepare("SELECT id FROM quotes ORDER BY id").all<{ id: string }>()).results.map((r) => r.id),
});

const KEPT = {
  loginFailures: ["fresh@x.test", "locked@x.test"],
  setupTokens: ["live", "live-used"],
  radarSignals: ["sess-live"],
  quotes: ["q-live"],
};

// Every upkeep run logs a line per task; each test expects its lines (and errors) and reads them.
const lines = (logged: string[]) => logged.map((line) => JSON.parse(line));

describe("scheduled upkeep", () => {
  it("the Cron Trigger's handler removes expired rows as of the scheduled time and keeps the rest", async () => {
    const logs = expectLogs("log");
    const errors = expectLogs("error");
    await seed();
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: NOW, cron: "17 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(await remaining()).toEqual(KEPT);
    expect(lines(logs)).toEqual([
      { level: "info", event: "upkeep", task: "expired-quotes", removed: 1, durationMs: expect.any(Number) },
      { level: "info", event: "upkeep", task: "stale_login_failures", removed: 2, durationMs: expect.any(Number) },
      { level: "info", event: "upkeep", task: "expired_card_setup_tokens", removed: 3, durationMs: expect.any(Number) },
      { level: "info", event: "upkeep", task: "expired_radar_signals", removed: 1, durationMs: expect.any(Number) },
      { level: "info", event: "upkeep", task: "radar-pii-retention", removed: 0, durationMs: expect.any(Number) },
      { level: "info", event: "upkeep", task: "webhook-reenqueue", removed: 0, durationMs: expect.any(Number) },
      { level: "info", event: "upkeep", task: "expired-idempotency", removed: 0, durationMs: expect.any(Number) },
      { level: "info", event: "upkeep", task: "settle-pending-bookings", removed: 0, durationMs: expect.any(Number) },
    ]);
    expect(errors).toEqual([]);
  });

  it("removes nothing more on a second run", async () => {
    expectLogs("log");
    await seed();
    await runUpkeep(upkeepTasks, env, new Date(NOW));
    expect(await runUpkeep(upkeepTasks, env, new Date(NOW))).toEqual(
      upkeepTasks.map((t) => ({ task: t.name, removed: 0 })),
    );
    expect(await remaining()).toEqual(KEPT);
  });

  it("a failing task is logged with its stack and does not stop the others", async () => {
    expectLogs("log");
    const errors = expectLogs("error");
    await seed();
    const broken: UpkeepTask = {
      name: "broken_table",
      run: async (e) => (await e.DB.prepare("DELETE FROM no_such_table").run()).meta.changes,
    };
    const outcomes = await runUpkeep([broken, ...upkeepTasks], env, new Date(NOW));
    expect(outcomes[0]).toEqual({ task: "broken_table", failed: expect.stringContaining("no such table") });
    expect(outcomes.slice(1)).toEqual([
      { task: "expired-quotes", removed: 1 },
      { task: "stale_login_failures", removed: 2 },
      { task: "expired_card_setup_tokens", removed: 3 },
      { task: "expired_radar_signals", removed: 1 },
      { task: "radar-pii-retention", removed: 0 },
      { task: "webhook-reenqueue", removed: 0 },
      { task: "expired-idempotency", removed: 0 },
      { task: "settle-pending-bookings", removed: 0 },
    ]);
    expect(await remaining()).toEqual(KEPT);
    expect(lines(errors)).toEqual([
      {
        level: "error",
        event: "upkeep_failed",
        task: "broken_table",
        error: expect.stringContaining("no such table"),
        durationMs: expect.any(Number),
      },
    ]);
  });

  const backlog = async () => {
    await env.DB.prepare("DELETE FROM payment_setup_tokens").run();
    const rows = Array.from({ length: 2_500 }, (_, i) => i);
    // One JSON parameter per statement: D1 allows at most 100 bound parameters.
    await env.DB.prepare(
      "INSERT INTO payment_setup_tokens (token_hash, partner_id, actor_id, session_id, expires_at) SELECT 'old-' || value, 'demo', 'a', 's', ? FROM json_each(?)",
    )
      .bind(NOW - MINUTE, JSON.stringify(rows))
      .run();
    await env.DB.prepare(
      "INSERT INTO payment_setup_tokens (token_hash, partner_id, actor_id, session_id, expires_at) VALUES ('live', 'demo', 'a', 's', ?)",
    )
      .bind(NOW + MINUTE)
      .run();
  };

  it("deletes a backlog larger than one batch", async () => {
    await backlog();
    const cardTokens = upkeepTasks.find((t) => t.name === "expired_card_setup_tokens")!;
    expect(await cardTokens.run(env, new Date(NOW))).toBe(2_500);
    expect((await remaining()).setupTokens).toEqual(["live"]);
  });

  it("stops after maxBatches statements; the next run takes the rest", async () => {
    await backlog();
    const expired = () =>
      deleteInBatches(env.DB, "payment_setup_tokens", "expires_at <= ?", [NOW], { batch: 1_000, maxBatches: 2 });
    expect(await expired()).toBe(2_000);
    expect(await expired()).toBe(500);
    expect((await remaining()).setupTokens).toEqual(["live"]);
  });
});
