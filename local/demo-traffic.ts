import { DEMO } from "../test/support/accounts";

/**
 * The demo's usage (GET /api/partner/usage, the console's overview) comes from calls npm start
 * really sends once the API answers, never from inserted rows: searches on both demo connections,
 * one refused for its dates, and a quote. Nothing is booked, so the demo's bookings, event log and
 * webhooks stay the ones README walks through.
 */
type Searched = { data?: { accommodations?: Array<{ options?: Array<{ id: string }> }> } };

export const sendDemoTraffic = async (base: string): Promise<string> => {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) return "Demo usage: the API did not answer in 60 s; none sent.";
    await new Promise((r) => setTimeout(r, 250));
  }
  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "api-key": DEMO.apiKey.key },
      body: JSON.stringify(body),
    }).then(async (res) => (await res.json()) as Searched);
  const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  const occupancies = [{ paxes: [{ age: 30 }, { age: 30 }] }];
  const search = (code: string, connection: number, checkIn = day(30), checkOut = day(32)) =>
    post("/api/search", {
      searchCriteria: { destinations: { accommodations: [{ code }] }, occupancies, checkIn, checkOut },
      settings: { access: { code: connection } },
    });
  const answers = [
    await search("US000001", 1001),
    await search("US000002", 1001),
    await search("US000003", 1001),
    await search("HX001", 1002),
    // Refused: checkOut before checkIn (invalid_dates in the usage's outcomes).
    await search("US000001", 1001, day(32), day(30)),
  ];
  const option = answers[0]!.data?.accommodations?.[0]?.options?.[0];
  let quotes = 0;
  if (option) {
    await post("/api/quote", {
      quoteCriteria: {
        optionId: option.id,
        accommodation: { code: "US000001" },
        occupancies,
        checkIn: day(30),
        checkOut: day(32),
      },
      settings: { access: { code: 1001 } },
    });
    quotes = 1;
  }
  return `Demo usage: ${answers.length} searches and ${quotes} quote sent as demo-partner-key (GET /api/partner/usage).`;
};
