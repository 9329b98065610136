/*! Edgestay Radar snippet: posts browser signals once per session (spec 4.14). No dependencies. */
(function () {
  "use strict";
  // Everything is guarded: the host page must never see an error, a delay or a change from us.
  try {
    var PATH = "/api/v1/radar/sessions/signals";
    var w = window;
    var d = document;
    var nav = navigator;

    var script = d.currentScript;
    if (!script?.getAttribute("data-collector-key")) {
      // Fallback for loaders that run us outside the script element's own execution.
      script = d.querySelector("script[data-collector-key][data-session-id]");
    }
    if (!script) return;
    var sessionId = script.getAttribute("data-session-id");
    var collectorKey = script.getAttribute("data-collector-key");
    // The API refuses session ids under 16 characters (guessable ones could be posted into).
    if (!sessionId || sessionId.length < 16 || !collectorKey) return;

    // One namespaced object, and one post per session even if the snippet is included twice.
    var ns = (w.EdgestayRadar = w.EdgestayRadar || { sent: {} });
    if (ns.sent[sessionId]) return;
    ns.sent[sessionId] = "pending";

    // The endpoint lives on the origin the snippet was served from, not the partner page's.
    var endpoint = new URL(script.src || PATH, d.baseURI).origin + PATH;

    var cut = function (value, max) {
      return typeof value === "string" ? value.slice(0, max) : undefined;
    };
    var whole = function (value, max) {
      var n = Math.round(Number(value));
      return isFinite(n) && n >= 0 ? Math.min(n, max) : undefined;
    };
    var timezone;
    try {
      timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    } catch (e) {
      timezone = undefined;
    }
    var scr = w.screen || {};
    var ratio = Number(w.devicePixelRatio);
    var pageUrl = String(w.location.href).split("#")[0];

    var signals = {
      page_url: cut(pageUrl, 2048),
      referrer: cut(d.referrer, 2048),
      user_agent: cut(nav.userAgent, 1024),
      language: cut(nav.language, 64),
      timezone: cut(timezone, 64),
      screen: {
        width: whole(scr.width, 100000),
        height: whole(scr.height, 100000),
        pixel_ratio: isFinite(ratio) && ratio >= 0 ? Math.min(ratio, 100) : undefined,
      },
      device: {
        platform: cut(nav.platform, 128),
        hardware_concurrency: whole(nav.hardwareConcurrency, 4096),
        touch_points: whole(nav.maxTouchPoints, 1024),
        webdriver: nav.webdriver === true,
      },
    };

    // Stable attributes of this browser on this device; the visitor id is their hash.
    var stable = [
      nav.userAgent,
      nav.language,
      (nav.languages || []).join(","),
      nav.platform,
      nav.hardwareConcurrency,
      nav.deviceMemory,
      nav.maxTouchPoints,
      `${scr.width}x${scr.height}x${scr.colorDepth}`,
      ratio,
      timezone,
    ].join("|");

    // FNV-1a, used where crypto.subtle is missing (pages served over plain HTTP).
    var fnv = function (text, seed) {
      var h = seed >>> 0;
      for (var i = 0; i < text.length; i++) {
        h ^= text.charCodeAt(i);
        h = Math.imul(h, 16777619) >>> 0;
      }
      return `0000000${h.toString(16)}`.slice(-8);
    };
    var visitorId = function () {
      var subtle = w.crypto?.subtle;
      if (!subtle || typeof TextEncoder === "undefined") {
        return Promise.resolve(
          `f${fnv(stable, 2166136261)}${fnv(stable, 16777619)}${fnv(stable, 3735928559)}${fnv(stable, 84696351)}`
        );
      }
      return subtle.digest("SHA-256", new TextEncoder().encode(stable)).then(function (buf) {
        var bytes = new Uint8Array(buf);
        var hex = "";
        for (var i = 0; i < 16; i++) hex += `0${bytes[i].toString(16)}`.slice(-2);
        return `s${hex}`;
      });
    };

    var send = function (id) {
      signals.fingerprint = { visitor_id: id };
      if (typeof fetch !== "function") return;
      return fetch(endpoint, {
        method: "POST",
        keepalive: true,
        mode: "cors",
        credentials: "omit",
        headers: { "content-type": "application/json", "session-id": sessionId, "x-radar-collector-key": collectorKey },
        body: JSON.stringify(signals),
      }).then(
        function (res) {
          ns.sent[sessionId] = res.ok ? "sent" : "rejected";
        },
        function () {
          ns.sent[sessionId] = "failed";
        }
      );
    };

    visitorId()
      .then(null, function () {
        return `f${fnv(stable, 2166136261)}${fnv(stable, 16777619)}`;
      })
      .then(send)
      .then(null, function () {
        ns.sent[sessionId] = "failed";
      });
  } catch (e) {
    // Swallowed on purpose: signals are best effort; the booking flow must go on.
  }
})();
