// The partner console: one page, one module per concern, reading the API over HTTP like any
// client (it imports nothing of the Worker's sources). Pages are routed by the URL's fragment
// (#/bookings/BK...), which never carries the token.
import { ApiFailure, api, clearToken, setToken, token, tokenExpiry, whenExpired } from "./api.js";
import { barChart } from "./chart.js";
import { append, day, facts, fill, h, money, table, time, utcDate } from "./dom.js";
import { md5Hex } from "./md5.js";

const main = /** @type {HTMLElement} */ (document.getElementById("main"));
const nav = /** @type {HTMLElement} */ (document.getElementById("nav"));
const who = /** @type {HTMLElement} */ (document.getElementById("who"));
const signOut = /** @type {HTMLButtonElement} */ (document.getElementById("sign-out"));
const notice = /** @type {HTMLElement} */ (document.getElementById("notice"));

const PAGES = [
  ["overview", "Overview"],
  ["bookings", "Bookings"],
  ["events", "Event log"],
  ["webhooks", "Webhooks"],
  ["api-keys", "API keys"],
  ["users", "Users"],
  ["connections", "Connections"],
];
const EVENT_TYPES = [
  "booking.confirmed",
  "booking.pending",
  "booking.failed",
  "booking.held",
  "booking.hold_expired",
  "booking.committed",
  "booking.modified",
  "booking.room_cancelled",
  "booking.cancelled",
];

/** @type {{ id: string, partnerId: string, email: string, role: "admin" | "user" } | null} */
let me = null;
/**
 * The element the current page draws in. A page still loading when the user moves on keeps
 * drawing in its own, by then detached, so it never overwrites the next page.
 */
let view = document.createElement("div");
/** Stops what the current page runs in the background (the event log's polling). */
let leavePage = () => {};
let expiryTimer = 0;

const isAdmin = () => me?.role === "admin";

let noticeTimer = 0;
/** Tells the user something happened (screen readers hear it: the region is aria-live); gone after a while. */
const say = (/** @type {string} */ message) => {
  fill(notice, message);
  clearTimeout(noticeTimer);
  noticeTimer = window.setTimeout(() => fill(notice), 10_000);
};

/** An error as the user sees it: the API's message and the request id to quote to support. */
const failure = (/** @type {unknown} */ error) =>
  h(
    "div",
    { class: "error", role: "alert" },
    h("strong", {}, error instanceof Error ? error.message : String(error)),
    error instanceof ApiFailure && error.requestId
      ? h("span", { class: "request-id" }, " Request id: ", h("code", {}, error.requestId))
      : null
  );

const loading = (/** @type {string} */ what) => h("p", { class: "loading", role: "status" }, `Loading ${what}…`);

/**
 * Runs an action from a button: the button is disabled meanwhile and an error shows beside it.
 * @param {HTMLElement} place where the error goes @param {() => Promise<void>} action
 */
const act = async (place, action, /** @type {HTMLButtonElement | null} */ button = null) => {
  place.querySelector(":scope > .error")?.remove();
  if (button) button.disabled = true;
  try {
    await action();
  } catch (error) {
    if (error instanceof ApiFailure && error.sessionEnded) return;
    place.prepend(failure(error));
  } finally {
    if (button) button.disabled = false;
  }
};

/** A page's heading, focused on arrival so keyboard and screen-reader users start there. */
const heading = (/** @type {string} */ text) => h("h1", { tabindex: "-1" }, text);

// ---- Login --------------------------------------------------------------------------------

const showLogin = (/** @type {string} */ message = "") => {
  leavePage();
  me = null;
  clearTimeout(expiryTimer);
  nav.hidden = true;
  signOut.hidden = true;
  fill(who);
  const email = h("input", {
    id: "login-email",
    type: "email",
    name: "email",
    autocomplete: "username",
    required: true,
  });
  const password = h("input", {
    id: "login-password",
    type: "password",
    name: "password",
    autocomplete: "current-password",
    required: true,
  });
  const button = h("button", { type: "submit" }, "Sign in");
  const form = h(
    "form",
    { class: "login", novalidate: false },
    heading("Sign in to the Edgestay console"),
    message ? h("p", { class: "error", role: "alert" }, message) : null,
    h("label", { for: "login-email" }, "E-mail"),
    email,
    h("label", { for: "login-password" }, "Password"),
    password,
    button
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    act(
      form,
      async () => {
        const data = await api("POST", "/api/auth/login", {
          accountType: "email",
          accountValue: /** @type {HTMLInputElement} */ (email).value.trim(),
          // The contract's login takes the password's MD5, never the password itself.
          password: md5Hex(/** @type {HTMLInputElement} */ (password).value),
        });
        setToken(data.token.accessToken);
        await start();
      },
      /** @type {HTMLButtonElement} */ (button)
    );
  });
  fill(main, form);
  email.focus();
};

whenExpired(() => showLogin("Your session has expired. Sign in again."));

/** Signs the user out when the token's own expiry comes, even on an idle page. */
const watchExpiry = () => {
  clearTimeout(expiryTimer);
  const exp = tokenExpiry();
  if (exp === null) return;
  const ms = exp * 1000 - Date.now();
  if (ms <= 0) {
    clearToken();
    showLogin("Your session has expired. Sign in again.");
    return;
  }
  expiryTimer = window.setTimeout(
    () => {
      clearToken();
      showLogin("Your session has expired. Sign in again.");
    },
    Math.min(ms, 2 ** 31 - 1)
  );
};

const start = async () => {
  try {
    me = await api("GET", "/api/users/me");
  } catch (error) {
    if (!(error instanceof ApiFailure && error.status === 401))
      showLogin(String(error instanceof Error ? error.message : error));
    return;
  }
  watchExpiry();
  fill(who, me.email, " ", h("span", { class: "role" }, me.role));
  nav.hidden = false;
  signOut.hidden = false;
  if (!location.hash || location.hash === "#/") location.hash = "#/overview";
  else route();
};

signOut.addEventListener("click", () => {
  clearToken();
  showLogin("You are signed out.");
});

// ---- Routing ------------------------------------------------------------------------------

const route = () => {
  if (!me) return;
  leavePage();
  leavePage = () => {};
  const [, page = "overview", ...rest] = location.hash.split("/");
  for (const link of nav.querySelectorAll("a")) {
    if (link.getAttribute("href") === `#/${page}`) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const title = PAGES.find(([name]) => name === page)?.[1] ?? "Not found";
  document.title = `${title} · Edgestay console`;
  const pages = {
    overview: overviewPage,
    bookings: () => (rest[0] ? bookingPage(decodeURIComponent(rest[0])) : bookingsPage()),
    events: eventsPage,
    webhooks: webhooksPage,
    "api-keys": apiKeysPage,
    users: usersPage,
    connections: connectionsPage,
  };
  view = h("div", { class: "view" });
  main.replaceChildren(view);
  const show = pages[page];
  if (!show) {
    fill(view, heading("Not found"), h("p", {}, "This page does not exist. Pick one from the menu."));
  } else show();
  main.querySelector("h1")?.focus();
};

window.addEventListener("hashchange", route);
append(
  nav,
  h(
    "ul",
    {},
    PAGES.map(([name, label]) => h("li", {}, h("a", { href: `#/${name}` }, label)))
  )
);

// ---- Overview -----------------------------------------------------------------------------

const overviewPage = () => {
  const here = view;
  const from = h("input", { id: "usage-from", type: "date", value: utcDate(-29), max: utcDate() });
  const to = h("input", { id: "usage-to", type: "date", value: utcDate(), max: utcDate() });
  const period = h(
    "select",
    { id: "usage-period" },
    h("option", { value: "7" }, "Last 7 days"),
    h("option", { value: "30", selected: true }, "Last 30 days"),
    h("option", { value: "90" }, "Last 90 days"),
    h("option", { value: "custom" }, "Custom dates")
  );
  const custom = h(
    "span",
    { class: "custom-dates", hidden: true },
    h("label", { for: "usage-from" }, "From (UTC)"),
    from,
    h("label", { for: "usage-to" }, "To (UTC)"),
    to
  );
  const result = h("div", { class: "overview" });
  const form = h(
    "form",
    { class: "filters" },
    h("label", { for: "usage-period" }, "Period"),
    period,
    custom,
    h("button", { type: "submit" }, "Show")
  );
  const value = (/** @type {HTMLElement} */ el) => /** @type {HTMLInputElement} */ (el).value;
  period.addEventListener("change", () => {
    custom.hidden = value(period) !== "custom";
    if (value(period) !== "custom") load();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    load();
  });
  const load = async () => {
    const days = Number(value(period));
    const range = value(period) === "custom" ? [value(from), value(to)] : [utcDate(1 - days), utcDate()];
    fill(result, loading("usage"));
    try {
      const usage = await api("GET", `/api/partner/usage?from=${range[0]}&to=${range[1]}`);
      fill(result, usageView(usage));
    } catch (error) {
      fill(result, failure(error));
    }
  };
  fill(
    here,
    heading("Overview"),
    h("p", { class: "hint" }, "Calls of your partner per UTC day, through every face of the API."),
    form,
    result
  );
  load();
};

/** @param {{ days: any[], totals: any, lookToBook: number | null }} usage */
const usageView = (usage) => {
  const days = usage.days ?? [];
  const dates = days.map((d) => d.date);
  const totals = usage.totals ?? {};
  const ratio = (/** @type {number} */ searches, /** @type {number} */ books) => (books > 0 ? searches / books : null);
  const oneDecimal = (/** @type {number} */ v) => v.toLocaleString(undefined, { maximumFractionDigits: 1 });
  const lookToBook = usage.lookToBook ?? ratio(totals.searches ?? 0, totals.books ?? 0);
  const count = (/** @type {string} */ key) => days.reduce((sum, d) => sum + (d[key] ?? 0), 0);
  if (days.length === 0 || ["searches", "quotes", "books", "cancels"].every((key) => count(key) === 0))
    return h(
      "div",
      {},
      totalsView(totals, lookToBook, oneDecimal),
      h(
        "p",
        { class: "empty" },
        "No calls in this period yet. Searches, quotes, bookings and cancellations will show here."
      )
    );
  const simple = (/** @type {string} */ key, /** @type {string} */ title, /** @type {string} */ name) =>
    barChart({
      id: `chart-${key}`,
      title,
      dates,
      series: [{ name, values: days.map((d) => d[key] ?? 0) }],
      summary: `${title}: ${count(key).toLocaleString()} in total over ${days.length} days.`,
    });
  const codes = [...new Set(days.flatMap((d) => Object.keys(d.outcomes ?? {})))].sort((a, b) =>
    a === "success" ? -1 : b === "success" ? 1 : a.localeCompare(b)
  );
  return h(
    "div",
    {},
    totalsView(totals, lookToBook, oneDecimal),
    h(
      "div",
      { class: "charts" },
      simple("searches", "Searches per day", "Searches"),
      simple("quotes", "Quotes per day", "Quotes"),
      simple("books", "Bookings per day", "Bookings"),
      simple("cancels", "Cancellations per day", "Cancellations"),
      barChart({
        id: "chart-look-to-book",
        title: "Look-to-book ratio per day (searches per booking)",
        dates,
        series: [{ name: "Look-to-book", values: days.map((d) => ratio(d.searches ?? 0, d.books ?? 0)) }],
        format: oneDecimal,
        summary:
          lookToBook === null
            ? "No bookings in this period, so no look-to-book ratio."
            : `Look-to-book over the period: ${oneDecimal(lookToBook)} searches per booking. Days without bookings have no bar.`,
      }),
      barChart({
        id: "chart-outcomes",
        title: "Answers by outcome",
        dates,
        series: codes.map((code) => ({ name: code, values: days.map((d) => d.outcomes?.[code] ?? 0) })),
        legend: true,
        summary: `Answers by outcome: ${codes.map((code) => `${code} ${days.reduce((s, d) => s + (d.outcomes?.[code] ?? 0), 0)}`).join(", ") || "none"}.`,
      }),
      simple("supplierTimeouts", "Supplier timeouts per day", "Supplier timeouts")
    )
  );
};

const totalsView = (
  /** @type {any} */ totals,
  /** @type {number | null} */ lookToBook,
  /** @type {(v: number) => string} */ oneDecimal
) =>
  h(
    "ul",
    { class: "totals", "aria-label": "Totals for the period" },
    [
      ["Searches", totals.searches],
      ["Quotes", totals.quotes],
      ["Bookings", totals.books],
      ["Cancellations", totals.cancels],
      ["Supplier timeouts", totals.supplierTimeouts],
      ["Look-to-book", lookToBook === null ? "—" : oneDecimal(lookToBook)],
    ].map(([label, value]) =>
      h("li", {}, h("span", { class: "total-label" }, label), h("span", { class: "total-value" }, value ?? 0))
    )
  );

// ---- Bookings -----------------------------------------------------------------------------

const bookingsPage = () => {
  const here = view;
  const field = (
    /** @type {string} */ id,
    /** @type {string} */ label,
    /** @type {Record<string, unknown>} */ attrs
  ) => [h("label", { for: id }, label), h("input", { id, name: id, ...attrs })];
  const status = h(
    "select",
    { id: "status", name: "status" },
    h("option", { value: "" }, "Any"),
    h("option", { value: "success" }, "Confirmed"),
    h("option", { value: "cancelled" }, "Cancelled")
  );
  const form = h(
    "form",
    { class: "filters" },
    field("partnerReference", "Your reference", { type: "search", "aria-describedby": "reference-hint" }),
    h("label", { for: "status" }, "Status"),
    status,
    field("createdFrom", "Created from", { type: "date" }),
    field("createdTo", "Created to", { type: "date" }),
    field("checkInFrom", "Check-in from", { type: "date" }),
    field("checkInTo", "Check-in to", { type: "date" }),
    h("button", { type: "submit" }, "Find bookings")
  );
  const results = h("div", {});
  const more = h("button", { type: "button", hidden: true }, "Load more");
  /** @type {string | null} */
  let cursor = null;
  /** @type {HTMLElement | null} */
  let body = null;

  const query = () => {
    const params = new URLSearchParams();
    for (const [name, value] of new FormData(/** @type {HTMLFormElement} */ (form)))
      if (typeof value === "string" && value.trim() !== "") params.set(name, value.trim());
    return params;
  };
  const rows = (/** @type {any[]} */ bookings) =>
    bookings.map((b) =>
      h(
        "tr",
        {},
        h("td", {}, h("a", { href: `#/bookings/${encodeURIComponent(b.bookingReference)}` }, b.bookingReference)),
        h("td", {}, b.partnerReference),
        h("td", {}, b.accommodation?.name ?? b.accommodation?.code),
        h("td", {}, day(b.checkIn), " – ", day(b.checkOut)),
        h("td", {}, h("span", { class: `status status-${b.status}` }, b.status)),
        h("td", { class: "number" }, money(b.chargeTotal, b.rate?.currency ?? "USD")),
        h("td", {}, time(b.createdAt))
      )
    );
  const load = async (/** @type {boolean} */ next) => {
    const params = query();
    if (next && cursor) params.set("cursor", cursor);
    if (!next) fill(results, loading("bookings"));
    more.hidden = true;
    try {
      const data = await api("GET", `/api/bookings?${params}`);
      // partnerReference finds one booking: the API answers it alone, not a page.
      const bookings = Array.isArray(data?.bookings) ? data.bookings : data ? [data] : [];
      cursor = data?.nextCursor ?? null;
      if (!next) {
        if (bookings.length === 0) {
          fill(results, h("p", { class: "empty" }, "No bookings match these filters."));
          return;
        }
        const wrap = table(
          "Bookings, newest first",
          ["Booking", "Your reference", "Hotel", "Stay", "Status", "Total", "Created"],
          [],
          "Bookings"
        );
        body = wrap.querySelector("tbody");
        fill(results, wrap);
      }
      append(/** @type {HTMLElement} */ (body), rows(bookings));
      more.hidden = cursor === null;
    } catch (error) {
      // A reference that names no booking is an empty result, not a failure.
      if (!next && error instanceof ApiFailure && error.code === "booking_not_found")
        fill(results, h("p", { class: "empty" }, error.message));
      else if (next) results.append(failure(error));
      else fill(results, failure(error));
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    load(false);
  });
  more.addEventListener("click", () => load(true));
  fill(
    here,
    heading("Bookings"),
    form,
    h("p", { id: "reference-hint", class: "hint" }, "Your reference finds one booking; the other filters list them."),
    results,
    more
  );
  load(false);
};

/** The partner's connections, read once per page that needs a connection code. */
const connectionsOf = async () =>
  /** @type {any[]} */ (await api("GET", `/api/partners/${encodeURIComponent(me?.partnerId ?? "")}/connections`));

const rateView = (/** @type {any} */ rate, /** @type {string} */ title) => {
  if (!rate) return null;
  const c = rate.currency;
  return h(
    "section",
    { class: "rate", "aria-label": title },
    h("h3", {}, title),
    facts([
      ["Base rate", money(rate.baseRate, c)],
      ["Taxes and fees", money(rate.taxesAndFees, c)],
      ["Charged total", money(rate.chargeTotal, c)],
      ["Total stay price", money(rate.totalStayPrice, c)],
      ["Due at the property", money(rate.dueAtProperty?.amount ?? 0, rate.dueAtProperty?.currency ?? c)],
    ]),
    rate.charges?.length
      ? [
          h("h4", {}, "Charges"),
          table(
            `${title}: charges`,
            ["Charge", "Type", "Amount", "Included"],
            rate.charges.map((/** @type {any} */ x) => [
              x.description ?? x.code,
              x.type,
              money(x.amount, c),
              x.included ? "Included" : "On top",
            ])
          ),
        ]
      : null,
    rate.dueAtProperty?.charges?.length
      ? [
          h("h4", {}, "Paid at the property"),
          table(
            `${title}: due at the property`,
            ["Charge", "Type", "Amount"],
            rate.dueAtProperty.charges.map((/** @type {any} */ x) => [
              x.description ?? x.code,
              x.type,
              money(x.amount, x.currency ?? rate.dueAtProperty.currency),
            ])
          ),
        ]
      : null,
    rate.nights?.length
      ? [
          h("h4", {}, "Nights"),
          table(
            `${title}: nights`,
            ["Night", "Base rate", "Taxes and fees"],
            rate.nights.map((/** @type {any} */ n) => [day(n.date), money(n.baseRate, c), money(n.taxesAndFees, c)])
          ),
        ]
      : null
  );
};

const bookingPage = async (/** @type {string} */ reference) => {
  const here = view;
  const back = h("p", {}, h("a", { href: "#/bookings" }, "← All bookings"));
  fill(here, back, heading(`Booking ${reference}`), loading("the booking"));
  let booking;
  try {
    booking = await api("GET", `/api/bookings/${encodeURIComponent(reference)}`);
  } catch (error) {
    fill(here, back, heading(`Booking ${reference}`), failure(error));
    return;
  }
  const b = booking;
  const c = b.rate?.currency ?? "USD";
  const events = h(
    "section",
    { "aria-labelledby": "booking-events" },
    h("h2", { id: "booking-events" }, "Events"),
    loading("events")
  );
  const actions = h(
    "section",
    { class: "actions", "aria-labelledby": "booking-actions" },
    h("h2", { id: "booking-actions" }, "Cancel or change")
  );

  fill(
    here,
    back,
    heading(`Booking ${b.bookingReference}`),
    facts([
      ["Status", h("span", { class: `status status-${b.status}` }, b.status)],
      ["Your reference", b.partnerReference],
      ["Hotel", [b.accommodation?.name ?? "", " ", h("span", { class: "code" }, `(${b.accommodation?.code})`)]],
      ["Stay", [day(b.checkIn), " – ", day(b.checkOut)]],
      ["Holder", `${b.holder?.name ?? ""} ${b.holder?.surName ?? ""}`.trim()],
      ["Board", b.boardCode],
      ["Payment", b.paymentType],
      ["Supplier", b.supplierCode ?? "embedded"],
      ["Hotel confirmation", b.hotelConfirmationNumber],
      ["Charged total", money(b.chargeTotal, c)],
      ["Created", time(b.createdAt)],
      ["Modified", b.modifiedAt ? time(b.modifiedAt) : undefined],
      ["Cancelled", b.cancelledAt ? time(b.cancelledAt) : undefined],
      ["Cancellation cost", b.cancelPrice ? money(b.cancelPrice.amount, b.cancelPrice.currency) : undefined],
    ]),
    h(
      "section",
      { "aria-labelledby": "booking-rooms" },
      h("h2", { id: "booking-rooms" }, "Rooms"),
      table(
        "Rooms",
        ["Room", "Description", "Status", "Total"],
        (b.rooms ?? []).map((/** @type {any} */ r) => [
          r.code,
          r.description,
          h("span", { class: `status status-${r.status}` }, r.status),
          money(r.rate?.chargeTotal, r.rate?.currency ?? c),
        ])
      )
    ),
    h(
      "section",
      { "aria-labelledby": "booking-price" },
      h("h2", { id: "booking-price" }, "Price"),
      rateView(b.rate, "Price breakdown")
    ),
    h(
      "section",
      { "aria-labelledby": "booking-policy" },
      h("h2", { id: "booking-policy" }, "Cancellation policy"),
      h("p", {}, b.cancelPolicy?.refundable ? "Refundable." : "Not refundable."),
      b.cancelPolicy?.cancelPenalties?.length
        ? table(
            "Cancellation penalties",
            ["From", "Penalty", "Amount"],
            b.cancelPolicy.cancelPenalties.map((/** @type {any} */ p) => [
              time(p.deadline),
              p.penaltyType,
              money(p.value, p.currency),
            ])
          )
        : h("p", {}, "No penalties.")
    ),
    actions,
    events
  );
  bookingActions(actions, b);
  try {
    const page = await api("GET", `/api/events?bookingReference=${encodeURIComponent(reference)}&limit=100`);
    const mine = (page.events ?? []).filter((/** @type {any} */ e) => e.bookingReference === reference);
    fill(
      events,
      h("h2", { id: "booking-events" }, "Events"),
      mine.length === 0
        ? h("p", { class: "empty" }, "No events for this booking.")
        : table(
            "Events of this booking",
            ["#", "Type", "At"],
            mine.map((/** @type {any} */ e) => [e.sequence, e.type, time(e.createdAt)])
          )
    );
  } catch (error) {
    fill(events, h("h2", { id: "booking-events" }, "Events"), failure(error));
  }
};

/** Cancellation (its preview first) and the change preview of one booking. */
const bookingActions = (/** @type {HTMLElement} */ place, /** @type {any} */ b) => {
  const reference = b.bookingReference;
  const preview = h("div", { class: "preview", "aria-live": "polite" });
  const previewButton = h("button", { type: "button" }, "Preview cancellation");
  previewButton.addEventListener("click", () =>
    act(
      place,
      async () => {
        const p = await api("GET", `/api/bookings/${encodeURIComponent(reference)}/cancellation`);
        const confirm = h(
          "button",
          { type: "button", class: "danger", disabled: !isAdmin() || p.cancellable === false },
          "Confirm cancellation"
        );
        confirm.addEventListener("click", () =>
          act(
            place,
            async () => {
              // With a token the API cancels through the booking's own connection: settings.access is not read.
              await api("POST", "/api/cancel", { input: { reference: { bookingReference: reference } }, settings: {} });
              say(`Booking ${reference} is cancelled.`);
              await bookingPage(reference);
            },
            /** @type {HTMLButtonElement} */ (confirm)
          )
        );
        fill(
          preview,
          h("h3", {}, "Cancellation preview"),
          facts([
            ["Cancelling now costs", h("strong", { class: "penalty" }, money(p.cancelPrice, p.currency))],
            ["Refundable", p.refundable ? "Yes" : "No"],
            ["Free until", p.deadline ? time(p.deadline) : "—"],
            ["Can be cancelled", p.cancellable === false ? "No" : "Yes"],
          ]),
          isAdmin() ? confirm : h("p", { class: "hint" }, "Only your partner's admins can cancel.")
        );
      },
      /** @type {HTMLButtonElement} */ (previewButton)
    )
  );

  const change = changePreview(b);
  fill(
    place,
    h("h2", { id: "booking-actions" }, "Cancel or change"),
    b.status === "cancelled" ? h("p", {}, "This booking is cancelled.") : [previewButton, preview, change]
  );
};

/** What changing the stay's dates would cost (a preview only: nothing changes). */
const changePreview = (/** @type {any} */ b) => {
  const checkIn = h("input", { id: "change-check-in", type: "date", value: b.checkIn, required: true });
  const checkOut = h("input", { id: "change-check-out", type: "date", value: b.checkOut, required: true });
  const connection = h("select", { id: "change-connection" });
  const out = h("div", { class: "preview", "aria-live": "polite" });
  const button = h("button", { type: "submit" }, "Preview change");
  const form = h(
    "form",
    { class: "filters" },
    h("h3", {}, "Change preview"),
    h("label", { for: "change-check-in" }, "New check-in"),
    checkIn,
    h("label", { for: "change-check-out" }, "New check-out"),
    checkOut,
    h("label", { for: "change-connection" }, "Connection"),
    connection,
    button,
    out
  );
  connectionsOf()
    .then((list) =>
      append(
        connection,
        list.map((c) => h("option", { value: c.code }, `${c.code} (${c.connectionType})`))
      )
    )
    .catch(() => {});
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    act(
      form,
      async () => {
        const p = await api("POST", `/api/bookings/${encodeURIComponent(b.bookingReference)}/modifications/preview`, {
          settings: { access: { code: Number(/** @type {HTMLSelectElement} */ (connection).value) } },
          change: {
            checkIn: /** @type {HTMLInputElement} */ (checkIn).value,
            checkOut: /** @type {HTMLInputElement} */ (checkOut).value,
          },
        });
        fill(
          out,
          facts([
            ["Price difference", money(p.priceDifference.amount, p.priceDifference.currency)],
            ["Modification fee", money(p.modificationFee.amount, p.modificationFee.currency)],
            ["Penalty due now", money(p.penaltyDue.amount, p.penaltyDue.currency)],
            ["New total", money(p.booking?.chargeTotal, p.booking?.rate?.currency ?? p.priceDifference.currency)],
            ["Preview valid until", time(p.expiresAt)],
          ]),
          h("p", { class: "hint" }, "A preview only: the booking is unchanged.")
        );
      },
      /** @type {HTMLButtonElement} */ (button)
    );
  });
  return form;
};

// ---- Event log ----------------------------------------------------------------------------

const FOLLOW_EVERY_MS = 5_000;

const eventsPage = () => {
  const here = view;
  const boxes = EVENT_TYPES.map((type) =>
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "types", value: type }), ` ${type}`)
  );
  const follow = h("input", { id: "follow", type: "checkbox", checked: true });
  const form = h(
    "form",
    { class: "filters" },
    h("fieldset", {}, h("legend", {}, "Event types (none ticked: all)"), boxes),
    h("label", { class: "check" }, follow, " Follow new events"),
    h("button", { type: "submit" }, "Show events")
  );
  const status = h("p", { class: "hint", role: "status" });
  const results = h("div", {});
  /** @type {HTMLElement | null} */
  let body = null;
  let after = "0";
  let timer = 0;
  let generation = 0;

  const types = () =>
    [...form.querySelectorAll("input[name=types]:checked")].map((el) => /** @type {HTMLInputElement} */ (el).value);
  const row = (/** @type {any} */ e) =>
    h(
      "tr",
      {},
      h("td", { class: "number" }, e.sequence),
      h("td", {}, e.type),
      h("td", {}, h("a", { href: `#/bookings/${encodeURIComponent(e.bookingReference)}` }, e.bookingReference)),
      h("td", {}, e.partnerReference),
      h("td", {}, time(e.createdAt))
    );
  /** Reads every page after `after`; newest on top. */
  const read = async (/** @type {number} */ mine) => {
    const wanted = types();
    for (;;) {
      const params = new URLSearchParams({ after, limit: "100" });
      if (wanted.length > 0) params.set("types", wanted.join(","));
      const page = await api("GET", `/api/events?${params}`);
      if (mine !== generation) return;
      after = page.nextCursor;
      if (page.events.length > 0) {
        if (!body) {
          const wrap = table("Events, newest first", ["#", "Type", "Booking", "Your reference", "At"], [], "Events");
          body = wrap.querySelector("tbody");
          fill(results, wrap);
        }
        body.prepend(...page.events.map(row).reverse());
      }
      if (!page.hasMore) break;
    }
    if (!body)
      fill(results, h("p", { class: "empty" }, "No events yet. Bookings, changes and cancellations appear here."));
    fill(
      status,
      /** @type {HTMLInputElement} */ (follow).checked
        ? `Following new events (checked ${new Date().toLocaleTimeString()}).`
        : ""
    );
  };
  const poll = async (/** @type {number} */ mine) => {
    try {
      await read(mine);
    } catch (error) {
      if (mine === generation) fill(results, failure(error));
      return;
    }
    if (mine === generation && /** @type {HTMLInputElement} */ (follow).checked)
      timer = window.setTimeout(() => poll(mine), FOLLOW_EVERY_MS);
  };
  const restart = () => {
    clearTimeout(timer);
    generation += 1;
    after = "0";
    body = null;
    fill(results, loading("events"));
    poll(generation);
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    restart();
  });
  follow.addEventListener("change", () => {
    clearTimeout(timer);
    if (/** @type {HTMLInputElement} */ (follow).checked) poll(generation);
    else fill(status, "");
  });
  leavePage = () => {
    clearTimeout(timer);
    generation += 1;
  };
  fill(here, heading("Event log"), form, status, results);
  restart();
};

// ---- Webhooks -----------------------------------------------------------------------------

/** A secret or key shown once, with a button that copies it. */
const shownOnce = (/** @type {string} */ label, /** @type {string} */ value, /** @type {string} */ id) => {
  const copy = h("button", { type: "button" }, "Copy");
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(value);
      say(`${label} copied.`);
    } catch {
      say("Copying is not allowed here: select the text and copy it.");
    }
  });
  return h(
    "div",
    { class: "once", role: "status" },
    h("p", {}, h("strong", {}, label), " — shown only this once; keep it somewhere safe."),
    h("code", { id, class: "secret" }, value),
    " ",
    copy
  );
};

const webhooksPage = async () => {
  const here = view;
  fill(here, heading("Webhooks"), loading("webhook endpoints"));
  if (!isAdmin()) {
    fill(here, heading("Webhooks"), h("p", {}, "Webhook endpoints are managed by your partner's admins."));
    return;
  }
  const list = h("div", {});
  const deliveries = h("section", { "aria-labelledby": "deliveries-title" });
  const once = h("div", {});
  const url = h("input", { id: "webhook-url", type: "url", required: true, placeholder: "https://…" });
  const boxes = EVENT_TYPES.map((type) =>
    h(
      "label",
      { class: "check" },
      h("input", {
        type: "checkbox",
        name: "events",
        value: type,
        checked: type === "booking.confirmed" || type === "booking.cancelled",
      }),
      ` ${type}`
    )
  );
  const create = h("button", { type: "submit" }, "Add endpoint");
  const form = h(
    "form",
    { class: "filters" },
    h("h2", {}, "Add an endpoint"),
    h("label", { for: "webhook-url" }, "URL"),
    url,
    h("fieldset", {}, h("legend", {}, "Events"), boxes),
    create
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    act(
      form,
      async () => {
        const events = [...form.querySelectorAll("input[name=events]:checked")].map(
          (el) => /** @type {HTMLInputElement} */ (el).value
        );
        const made = await api("POST", "/api/partner/webhooks", {
          url: /** @type {HTMLInputElement} */ (url).value.trim(),
          events,
        });
        fill(once, shownOnce("Signing secret", made.secret, "webhook-secret"));
        /** @type {HTMLInputElement} */ (url).value = "";
        await refresh();
      },
      /** @type {HTMLButtonElement} */ (create)
    );
  });

  const showDeliveries = async (/** @type {any} */ hook) => {
    fill(
      deliveries,
      h("h2", { id: "deliveries-title", tabindex: "-1" }, "Recent deliveries to ", hook.url),
      loading("deliveries")
    );
    deliveries.querySelector("h2")?.focus();
    try {
      const page = await api("GET", `/api/partner/webhooks/${encodeURIComponent(hook.id)}/deliveries`);
      const items = page.deliveries ?? [];
      fill(
        deliveries,
        h("h2", { id: "deliveries-title", tabindex: "-1" }, "Recent deliveries to ", hook.url),
        items.length === 0
          ? h("p", { class: "empty" }, "No deliveries yet.")
          : table(
              "Deliveries",
              ["Event", "Booking", "Status", "Attempts", "Response", "Last error", ""],
              items.map((/** @type {any} */ d) => {
                const redeliver = h("button", { type: "button" }, "Redeliver");
                redeliver.addEventListener("click", () =>
                  act(
                    deliveries,
                    async () => {
                      await api(
                        "POST",
                        `/api/partner/webhooks/${encodeURIComponent(hook.id)}/deliveries/${encodeURIComponent(d.eventId)}/redeliver`
                      );
                      say(`Event ${d.eventId} is queued for redelivery.`);
                      await showDeliveries(hook);
                    },
                    /** @type {HTMLButtonElement} */ (redeliver)
                  )
                );
                return [
                  d.type,
                  d.bookingReference,
                  h("span", { class: `status status-${d.status}` }, d.status),
                  d.attempts,
                  d.lastStatusCode ?? "—",
                  d.lastError ?? "",
                  redeliver,
                ];
              })
            )
      );
    } catch (error) {
      append(deliveries, failure(error));
    }
  };

  const refresh = async () => {
    fill(list, loading("webhook endpoints"));
    try {
      const hooks = await api("GET", "/api/partner/webhooks");
      if (hooks.length === 0) {
        fill(list, h("p", { class: "empty" }, "No webhook endpoints yet."));
        return;
      }
      fill(
        list,
        table(
          "Webhook endpoints",
          ["URL", "Events", "Created", ""],
          hooks.map((/** @type {any} */ hook) => {
            const show = h("button", { type: "button" }, "Deliveries");
            show.addEventListener("click", () => showDeliveries(hook));
            const rotate = h("button", { type: "button" }, "Rotate secret");
            rotate.addEventListener("click", () =>
              act(
                list,
                async () => {
                  if (!window.confirm(`Rotate the signing secret of ${hook.url}? The old one stops working.`)) return;
                  const rotated = await api("POST", `/api/partner/webhooks/${encodeURIComponent(hook.id)}/secret`);
                  fill(once, shownOnce("New signing secret", rotated.secret, "webhook-secret"));
                },
                /** @type {HTMLButtonElement} */ (rotate)
              )
            );
            const remove = h("button", { type: "button", class: "danger" }, "Delete");
            remove.addEventListener("click", () =>
              act(
                list,
                async () => {
                  if (!window.confirm(`Delete the endpoint ${hook.url} and its delivery records?`)) return;
                  await api("DELETE", `/api/partner/webhooks/${encodeURIComponent(hook.id)}`);
                  say("Endpoint deleted.");
                  fill(deliveries);
                  await refresh();
                },
                /** @type {HTMLButtonElement} */ (remove)
              )
            );
            return [
              hook.url,
              hook.events.join(", "),
              time(hook.createdAt),
              h("span", { class: "row-actions" }, show, rotate, remove),
            ];
          })
        )
      );
    } catch (error) {
      fill(list, failure(error));
    }
  };
  fill(here, heading("Webhooks"), once, list, form, deliveries);
  await refresh();
};

// ---- API keys -----------------------------------------------------------------------------

const apiKeysPage = async () => {
  const here = view;
  const list = h("div", {});
  const once = h("div", {});
  const name = h("input", { id: "key-name", type: "text", maxlength: "100" });
  const create = h("button", { type: "submit" }, "Create API key");
  const form = h(
    "form",
    { class: "filters" },
    h("h2", {}, "Create an API key"),
    h("label", { for: "key-name" }, "Name"),
    name,
    create
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    act(
      form,
      async () => {
        const value = /** @type {HTMLInputElement} */ (name).value.trim();
        const made = await api("POST", "/api/partner/api-keys", value ? { name: value } : {});
        fill(once, shownOnce("API key", made.apiKey, "new-api-key"));
        /** @type {HTMLInputElement} */ (name).value = "";
        await refresh();
      },
      /** @type {HTMLButtonElement} */ (create)
    );
  });
  const refresh = async () => {
    fill(list, loading("API keys"));
    try {
      const keys = await api("GET", "/api/partner/api-keys");
      if (keys.length === 0) {
        fill(list, h("p", { class: "empty" }, "No API keys yet."));
        return;
      }
      fill(
        list,
        table(
          "API keys",
          ["Name", "Key", "Created", "Revoked", ""],
          keys.map((/** @type {any} */ key) => {
            const revoke = h(
              "button",
              { type: "button", class: "danger", "aria-label": `Revoke ${key.name ?? key.id}` },
              "Revoke"
            );
            revoke.addEventListener("click", () =>
              act(
                list,
                async () => {
                  if (!window.confirm(`Revoke the API key ${key.name ?? key.id}? Calls with it stop at once.`)) return;
                  await api("DELETE", `/api/partner/api-keys/${encodeURIComponent(key.id)}`);
                  say(`API key ${key.name ?? key.id} revoked.`);
                  await refresh();
                },
                /** @type {HTMLButtonElement} */ (revoke)
              )
            );
            return [
              key.name ?? "—",
              h("code", {}, key.apiKey),
              time(key.createdAt),
              key.revokedAt ? time(key.revokedAt) : "—",
              isAdmin() && !key.revokedAt ? revoke : "",
            ];
          })
        )
      );
    } catch (error) {
      fill(list, failure(error));
    }
  };
  fill(here, heading("API keys"), once, list, isAdmin() ? form : null);
  await refresh();
};

// ---- Users --------------------------------------------------------------------------------

const usersPage = async () => {
  const here = view;
  const list = h("div", {});
  const field = (
    /** @type {string} */ id,
    /** @type {string} */ label,
    /** @type {Record<string, unknown>} */ attrs
  ) => [h("label", { for: id }, label), h("input", { id, name: id, ...attrs })];
  const role = h(
    "select",
    { id: "user-role", name: "role" },
    h("option", { value: "user" }, "user (read-only)"),
    h("option", { value: "admin" }, "admin")
  );
  const create = h("button", { type: "submit" }, "Create user");
  const form = h(
    "form",
    { class: "filters" },
    h("h2", {}, "Create a user"),
    field("user-email", "E-mail", { type: "email", required: true, autocomplete: "off" }),
    field("user-password", "Password", { type: "password", required: true, autocomplete: "new-password" }),
    field("user-first-name", "First name", { type: "text" }),
    field("user-last-name", "Last name", { type: "text" }),
    h("label", { for: "user-role" }, "Role"),
    role,
    create
  );
  const input = (/** @type {string} */ id) =>
    /** @type {HTMLInputElement} */ (form.querySelector(`#${id}`)).value.trim();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    act(
      form,
      async () => {
        const body = {
          email: input("user-email"),
          password: md5Hex(/** @type {HTMLInputElement} */ (form.querySelector("#user-password")).value),
          role: /** @type {HTMLSelectElement} */ (role).value,
          ...(input("user-first-name") ? { firstName: input("user-first-name") } : {}),
          ...(input("user-last-name") ? { lastName: input("user-last-name") } : {}),
        };
        await api("POST", "/api/users", body);
        say(`User ${body.email} created.`);
        /** @type {HTMLFormElement} */ (form).reset();
        await refresh();
      },
      /** @type {HTMLButtonElement} */ (create)
    );
  });
  const refresh = async () => {
    fill(list, loading("users"));
    try {
      const users = await api("GET", "/api/users");
      fill(
        list,
        table(
          "Users",
          ["E-mail", "Name", "Role", "Active", "Created", ""],
          users.map((/** @type {any} */ u) => {
            const buttons = h("span", { class: "row-actions" });
            if (isAdmin() && u.id !== me?.id) {
              if (u.role === "user") {
                const toggle = h("button", { type: "button" }, u.isActive ? "Deactivate" : "Activate");
                toggle.addEventListener("click", () =>
                  act(
                    list,
                    async () => {
                      await api("POST", `/api/users/${encodeURIComponent(u.id)}/active-status`, {
                        isActive: !u.isActive,
                      });
                      say(`${u.email} is ${u.isActive ? "deactivated" : "active"}.`);
                      await refresh();
                    },
                    /** @type {HTMLButtonElement} */ (toggle)
                  )
                );
                buttons.append(toggle);
              }
              const remove = h("button", { type: "button", class: "danger" }, "Delete");
              remove.addEventListener("click", () =>
                act(
                  list,
                  async () => {
                    if (!window.confirm(`Delete the user ${u.email}?`)) return;
                    await api("DELETE", `/api/users/${encodeURIComponent(u.id)}`);
                    say(`${u.email} deleted.`);
                    await refresh();
                  },
                  /** @type {HTMLButtonElement} */ (remove)
                )
              );
              buttons.append(remove);
            }
            return [
              u.email,
              `${u.firstName ?? ""} ${u.lastName ?? ""}`.trim() || "—",
              u.role,
              u.isActive ? "Yes" : "No",
              time(u.createdAt),
              buttons,
            ];
          })
        )
      );
    } catch (error) {
      fill(list, failure(error));
    }
  };
  fill(here, heading("Users"), list, isAdmin() ? form : null);
  await refresh();
};

// ---- Connections --------------------------------------------------------------------------

const connectionsPage = async () => {
  const here = view;
  fill(here, heading("Connections"), loading("connections"));
  let list;
  try {
    list = await connectionsOf();
  } catch (error) {
    fill(here, heading("Connections"), failure(error));
    return;
  }
  fill(
    here,
    heading("Connections"),
    list.length === 0
      ? h("p", { class: "empty" }, "No connections yet: your Edgestay contact sets them up.")
      : list.map((/** @type {any} */ c) => {
          const section = h("section", { class: "card", "aria-labelledby": `connection-${c.code}` });
          const email = h("input", { id: `email-${c.code}`, type: "email", value: c.notificationEmail ?? "" });
          const save = h("button", { type: "submit" }, "Save");
          const form = h(
            "form",
            { class: "filters" },
            h("label", { for: `email-${c.code}` }, "Notification e-mail"),
            email,
            save
          );
          form.addEventListener("submit", (event) => {
            event.preventDefault();
            act(
              form,
              async () => {
                const value = /** @type {HTMLInputElement} */ (email).value.trim();
                await api(
                  "PUT",
                  `/api/partners/${encodeURIComponent(me?.partnerId ?? "")}/connections/${encodeURIComponent(c.id)}/notification-email`,
                  value ? { notificationEmail: value } : {}
                );
                say(`Notification e-mail of connection ${c.code} saved.`);
              },
              /** @type {HTMLButtonElement} */ (save)
            );
          });
          return append(section, [
            h("h2", { id: `connection-${c.code}` }, `Connection ${c.code}`),
            facts([
              ["API type", c.apiType],
              ["Connection type", c.connectionType],
              ["In use", c.currentInUse ? "Yes" : "No"],
              ["Rate limit", `${c.rateLimit} per ${(c.rateLimitWindowMs / 1000).toLocaleString()} s`],
              ["Currency", c.currency],
              ["Notification e-mail", isAdmin() ? undefined : c.notificationEmail],
              ["Updated", time(c.updatedAt)],
            ]),
            isAdmin() ? form : null,
          ]);
        })
  );
};

// ---- Start --------------------------------------------------------------------------------

if (token()) start();
else showLogin();
