// Per-day charts drawn as plain SVG (no library to vendor, nothing to load): bars with a <title>
// per bar (shown on hover, read by screen readers), the axis' top value and the first and last day.

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 180;
const PAD = { top: 12, right: 8, bottom: 24, left: 44 };
/** Colours with at least 3:1 contrast against the white background (WCAG non-text contrast). */
export const PALETTE = ["#1f5fbf", "#b3261e", "#1b7f3b", "#8a4fbf", "#a05a00", "#00707a", "#5c5c5c", "#c2185b"];

const svg = (/** @type {string} */ tag, /** @type {Record<string, string | number>} */ attrs = {}, text = "") => {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  if (text) el.textContent = text;
  return el;
};

const shortDay = (/** @type {string} */ date) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString(undefined, { month: "short", day: "numeric", timeZone: "UTC" });

/** A round top for the axis at or above the highest value. */
const niceMax = (/** @type {number} */ value) => {
  if (value <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(value));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * step >= value) return m * step;
  return 10 * step;
};

/**
 * Stacked bars per day: `series` are the stacked parts (one is a plain bar chart). A legend names
 * them when there are several, or always with `legend` (a chart of kinds, however many came).
 * @param {{ id: string, title: string, dates: string[], series: { name: string, values: (number | null)[] }[], format?: (v: number) => string, summary: string, legend?: boolean }} spec
 */
export const barChart = ({ id, title, dates, series, format = (v) => v.toLocaleString(), summary, legend = false }) => {
  const totals = dates.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const top = niceMax(Math.max(0, ...totals));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, dates.length);
  const barW = Math.max(1, slot * 0.7);
  const y = (/** @type {number} */ v) => PAD.top + plotH - (v / top) * plotH;

  const figure = document.createElement("figure");
  figure.className = "chart";
  figure.id = id;
  const caption = document.createElement("figcaption");
  caption.id = `${id}-title`;
  caption.textContent = title;
  figure.append(caption);

  const root = svg("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: "img",
    "aria-labelledby": `${id}-title ${id}-summary`,
  });
  root.append(svg("desc", { id: `${id}-summary` }, summary));
  // Axis: its top value, zero and the baseline.
  root.append(svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(0), y2: y(0), stroke: "#767676" }));
  root.append(svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(top), y2: y(top), stroke: "#e0e0e0" }));
  root.append(svg("text", { x: PAD.left - 6, y: y(top) + 4, "text-anchor": "end", class: "axis" }, format(top)));
  root.append(svg("text", { x: PAD.left - 6, y: y(0) + 4, "text-anchor": "end", class: "axis" }, "0"));
  if (dates.length > 0) {
    root.append(svg("text", { x: PAD.left, y: HEIGHT - 6, class: "axis" }, shortDay(dates[0])));
    root.append(
      svg("text", { x: WIDTH - PAD.right, y: HEIGHT - 6, "text-anchor": "end", class: "axis" }, shortDay(dates.at(-1)))
    );
  }

  dates.forEach((date, i) => {
    const group = svg("g", { "data-date": date });
    const parts = series.filter((s) => s.values[i] !== null && s.values[i] !== undefined);
    const label =
      parts.length === 0
        ? `${shortDay(date)}: no value`
        : `${shortDay(date)}: ${parts.map((s) => (series.length > 1 ? `${s.name} ${format(s.values[i])}` : format(s.values[i]))).join(", ")}`;
    group.append(svg("title", {}, label));
    // A transparent hit area the full height of the day, so small values still show their title.
    group.append(svg("rect", { x: PAD.left + i * slot, y: PAD.top, width: slot, height: plotH, fill: "transparent" }));
    let base = 0;
    series.forEach((s, k) => {
      const value = s.values[i] ?? 0;
      if (value <= 0) return;
      group.append(
        svg("rect", {
          x: PAD.left + i * slot + (slot - barW) / 2,
          y: y(base + value),
          width: barW,
          height: Math.max(0.5, y(base) - y(base + value)),
          fill: PALETTE[k % PALETTE.length],
          "data-series": s.name,
          "data-value": value,
        })
      );
      base += value;
    });
    root.append(group);
  });
  figure.append(root);

  if (series.length > 1 || (legend && series.length > 0)) {
    const list = document.createElement("ul");
    list.className = "legend";
    series.forEach((s, k) => {
      const item = document.createElement("li");
      const swatch = svg("svg", { width: 12, height: 12, "aria-hidden": "true" });
      swatch.append(svg("rect", { width: 12, height: 12, fill: PALETTE[k % PALETTE.length] }));
      item.append(swatch, document.createTextNode(` ${s.name}`));
      list.append(item);
    });
    figure.append(list);
  }
  return figure;
};
