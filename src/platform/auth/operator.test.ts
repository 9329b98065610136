import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../app";
import { operatorAuth } from "./operator";
import { DEMO_KEY } from "../../../test/support/api";

const appWithOperatorRoute = () => {
  const app = createApp();
  app.get("/ops-probe", operatorAuth(), (c) => c.json({ ok: true }));
  return app;
};

describe("operator auth", () => {
  it.each([
    [undefined, 401, "Operator token is required"],
    ["Basic abc", 401, "Operator token is required"],
    ["Bearer demo-operator-tokem", 403, "Invalid operator token"],
    [`Bearer ${DEMO_KEY}`, 403, "Invalid operator token"],
    ["Bearer demo-operator-token extra", 403, "Invalid operator token"],
    ["Bearer", 401, "Operator token is required"],
    ["bearer demo-operator-token!", 403, "Invalid operator token"],
  ])("%s gives %i %s", async (authorization, status, message) => {
    const headers: Record<string, string> = authorization ? { authorization } : {};
    const res = await appWithOperatorRoute().request("/ops-probe", { headers }, env);
    expect(res.status).toBe(status);
    expect(((await res.json()) as { message: string }).message).toBe(message);
  });

  it("admits the operator token", async () => {
    const res = await appWithOperatorRoute().request(
      "/ops-probe",
      { headers: { authorization: "Bearer demo-operator-token" } },
      env,
    );
    expect(res.status).toBe(200);
  });
});
