import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { TestProject } from "vitest/node";

/**
 * vitest globalSetup (runs in Node): a webhook receiver on 127.0.0.1, because workerd tests cannot
 * listen on a port. The Worker under test POSTs to `<url>/hooks/<name>`; `?fail=N` makes the first
 * N requests of that name answer 500, and `?hang=1` answers only after 15 s (past the 10 s timeout). Tests read what arrived with `GET <url>/received/<name>?count=N`,
 * which answers as soon as N requests have arrived (or after 20 s with what there is).
 */
export type ReceivedWebhook = {
  headers: Record<string, string>;
  body: string;
  answeredStatus: number;
  receivedAt: number;
};

declare module "vitest" {
  interface ProvidedContext {
    webhookReceiver: string;
  }
}

export default async function setup(project: TestProject) {
  const received = new Map<string, ReceivedWebhook[]>();
  const waiters = new Set<() => void>();

  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      req.on("error", reject);
    });

  const answer = (res: ServerResponse, status: number, value: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(value));
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://receiver");
    const [, kind, name] = url.pathname.split("/");
    if (req.method === "POST" && kind === "hooks" && name) {
      const body = await readBody(req);
      const list = received.get(name) ?? [];
      const answeredStatus = list.length < Number(url.searchParams.get("fail") ?? 0) ? 500 : 200;
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      list.push({ headers, body, answeredStatus, receivedAt: Date.now() });
      received.set(name, list);
      for (const wake of waiters) wake();
      if (url.searchParams.has("hang")) await new Promise((resolve) => setTimeout(resolve, 15_000));
      return answer(res, answeredStatus, { received: answeredStatus === 200 });
    }
    if (req.method === "GET" && kind === "received" && name) {
      const count = Number(url.searchParams.get("count") ?? 1);
      const ready = () => (received.get(name)?.length ?? 0) >= count;
      if (!ready()) {
        await new Promise<void>((resolve) => {
          const wake = () => ready() && done();
          const timer = setTimeout(() => done(), 20_000);
          const done = () => {
            clearTimeout(timer);
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
        });
      }
      return answer(res, 200, received.get(name) ?? []);
    }
    return answer(res, 404, { error: "unknown receiver path" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("webhook receiver did not start");
  project.provide("webhookReceiver", `http://127.0.0.1:${address.port}`);
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}
