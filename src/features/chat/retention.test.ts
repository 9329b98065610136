import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SESSION_RETENTION_MS, type ChatSession } from "./chat-session";
import { chat, startSession } from "../../../test/support/chat";

describe("session retention", () => {
  it("keeps a session used within the retention period and deletes an idle one with its events", async () => {
    const id = await startSession("retention-actor");
    await chat("POST", "/events", { sessionId: id, text: "I need a hotel" });
    const stub = env.CHAT_SESSION.getByName(id);
    expect(
      await env.DB.prepare("select actor_id from chat_session_actors where session_id = ?").bind(id).first(),
    ).toEqual({ actor_id: "retention-actor" });
    const alarmAt = await runInDurableObject(stub, (_instance: ChatSession, state) => state.storage.getAlarm());
    expect(alarmAt).toBeGreaterThan(Date.now() + SESSION_RETENTION_MS - 60_000);

    // The alarm fires while the session is still fresh: it is kept and the alarm moves on.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await chat("GET", `/sessions/${id}`)).status).toBe(200);

    // Idle past the retention period: deleted, with its history.
    await runInDurableObject(stub, (_instance: ChatSession, state) => {
      state.storage.sql.exec("UPDATE session SET touched_at = ?", Date.now() - SESSION_RETENTION_MS - 1);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const gone = await chat("GET", `/sessions/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.json.error).toBe("session_not_found");
    // The erasure index forgets it too.
    expect(await env.DB.prepare("select 1 from chat_session_actors where session_id = ?").bind(id).first()).toBeNull();
  });
});
