// Building the page: every value becomes a text node or an attribute, never markup, so whatever a
// partner or a supplier wrote (hotel names, holder names, webhook URLs) shows as the text it is.

/**
 * An element with attributes and children. `on<event>` attributes take a listener; strings and
 * numbers become text nodes; null, undefined and false are skipped.
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...unknown} children
 * @returns {HTMLElement}
 */
export const h = (tag, attrs = {}, ...children) => {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
};

/** @param {Node} el @param {unknown} children one child or a (nested) list of them */
export const append = (el, children) => {
  for (const child of [children].flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
};

/** Replaces an element's content. @param {Element} el @param {...unknown} children */
export const fill = (el, ...children) => {
  el.replaceChildren();
  return append(el, children);
};

/** An instant in the user's time zone, its UTC form on hover. @param {string | null | undefined} iso */
export const time = (iso) => {
  if (!iso) return "—";
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const local = at.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  return h(
    "time",
    { datetime: at.toISOString(), title: `${at.toISOString().replace("T", " ").slice(0, 19)} UTC` },
    local
  );
};

/** A calendar date (a stay's check-in, a usage day): the same day everywhere, no time zone. */
export const day = (/** @type {string | null | undefined} */ date) => {
  if (!date) return "—";
  const at = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(at.getTime())) return date;
  return h("time", { datetime: date }, at.toLocaleDateString(undefined, { dateStyle: "medium", timeZone: "UTC" }));
};

/** An amount in major units of its currency, as the API writes it. */
export const money = (/** @type {number | null | undefined} */ amount, /** @type {string} */ currency) => {
  if (amount === null || amount === undefined) return "—";
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
};

/** Today's UTC date, `days` later (negative: earlier). */
export const utcDate = (days = 0) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** A labelled definition list of [label, value] pairs. */
export const facts = (/** @type {[string, unknown][]} */ pairs) =>
  h(
    "dl",
    { class: "facts" },
    // undefined: the fact does not apply here (left out); null: it applies and is empty (a dash).
    pairs
      .filter(([, value]) => value !== undefined)
      .map(([label, value]) => [h("dt", {}, label), h("dd", {}, value ?? "—")])
  );

/**
 * A table whose rows scroll sideways on a phone rather than squeezing; `label` names its scrolling
 * region (the caption by default). A page that adds rows later finds them a home in its `tbody`.
 */
export const table = (
  /** @type {string} */ caption,
  /** @type {string[]} */ head,
  /** @type {unknown[][]} */ rows,
  label = caption
) =>
  h(
    "div",
    { class: "table-wrap", tabindex: "0", role: "region", "aria-label": label },
    h(
      "table",
      {},
      h("caption", { class: "visually-hidden" }, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          // A column of buttons has no title of its own: it is named for screen readers.
          head.map((name) => h("th", { scope: "col" }, name || h("span", { class: "visually-hidden" }, "Actions")))
        )
      ),
      h(
        "tbody",
        {},
        rows.map((cells) =>
          h(
            "tr",
            {},
            cells.map((cell) => h("td", {}, cell))
          )
        )
      )
    )
  );
