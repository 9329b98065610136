import WebSocket from "ws";

/**
 * wrangler dev's inspector proxy turns on the DevTools Network domain of the Worker, and workerd
 * then keeps every subrequest's answer for DevTools. Each local D1 query is a subrequest, so the
 * isolate's heap grows with every search answer until V8 aborts it ("Reached heap limit", seen at
 * about 1.4 GB after a few minutes of bench). A deployed Worker has no inspector; the bench turns
 * the domain off so that it measures the Worker, and the soak's memory is the Worker's own.
 */
export const stopNetworkInspection = async (inspectorPort: number): Promise<void> => {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  for (const target of targets) {
    const socket = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise<void>((ok, fail) => {
      socket.on("error", fail);
      socket.on("open", () => socket.send(JSON.stringify({ id: 1, method: "Network.disable" })));
      socket.on("message", (data) => {
        if ((JSON.parse(String(data)) as { id?: number }).id === 1) ok();
      });
    });
    socket.close();
  }
};

/**
 * The JavaScript heap the Worker's isolate uses (as V8 reports it), in MiB; null when the inspector
 * does not answer within 2 s (wrangler's proxy serves one DevTools client at a time).
 */
export const workerHeapMiB = async (inspectorPort: number): Promise<number | null> => {
  const [target] = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  if (!target) return null;
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  try {
    return await new Promise<number | null>((ok, fail) => {
      setTimeout(() => ok(null), 2000);
      socket.on("error", fail);
      socket.on("open", () => socket.send(JSON.stringify({ id: 1, method: "Runtime.getHeapUsage" })));
      socket.on("message", (data) => {
        const reply = JSON.parse(String(data)) as { id?: number; result?: { usedSize: number } };
        if (reply.id === 1) ok((reply.result?.usedSize ?? Number.NaN) / 2 ** 20);
      });
    });
  } finally {
    socket.close();
  }
};
