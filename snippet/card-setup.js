// Card-setup page behind a chat setupUrl (/card-setup.html?token=...).
// Offline there is no payment processor: this page stands in for a PSP's hosted card fields. It
// checks the card, "tokenises" it by minting a random payment method id in the browser, and sends
// ONLY that token, the brand, the last 4 digits and the expiry to the attach endpoint. The card
// number and CVC never leave the page.
(function () {
  "use strict";
  var token = new URLSearchParams(location.search).get("token");
  var form = document.getElementById("card-form");
  var status = document.getElementById("status");
  // The token is in memory now; keep it out of the address bar and history.
  history.replaceState(null, "", location.pathname);

  function show(text, kind) {
    status.textContent = text;
    status.className = kind;
  }

  function luhn(digits) {
    var sum = 0;
    for (var i = 0; i < digits.length; i++) {
      var d = Number(digits[digits.length - 1 - i]);
      if (i % 2 === 1) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
    }
    return sum % 10 === 0;
  }

  function brandOf(digits) {
    if (/^4/.test(digits)) return "visa";
    if (/^(5[1-5]|2[2-7])/.test(digits)) return "mastercard";
    if (/^3[47]/.test(digits)) return "amex";
    if (/^6(011|5)/.test(digits)) return "discover";
    return "card";
  }

  function paymentMethodId() {
    var bytes = new Uint8Array(18);
    crypto.getRandomValues(bytes);
    return `pm_${btoa(String.fromCharCode.apply(null, bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`;
  }

  if (!token) {
    show("This link is incomplete. Ask the assistant for a new card-setup link.", "error");
    form.hidden = true;
    return;
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var numberField = document.getElementById("card-number");
    var cvcField = document.getElementById("cvc");
    var digits = numberField.value.replace(/[\s-]/g, "");
    var expMonth = Number(document.getElementById("exp-month").value);
    var expYear = Number(document.getElementById("exp-year").value);
    if (expYear < 100) expYear += 2000;
    if (!/^\d{13,19}$/.test(digits) || !luhn(digits)) return show("Please check the card number.", "error");
    if (!(expMonth >= 1 && expMonth <= 12) || !(expYear >= 2000 && expYear <= 2100))
      return show("Please check the expiry date.", "error");
    if (!/^\d{3,4}$/.test(cvcField.value.trim())) return show("Please check the security code.", "error");
    var body = {
      portalToken: token,
      paymentMethodId: paymentMethodId(),
      cardBrand: brandOf(digits),
      cardLast4: digits.slice(-4),
      expMonth: expMonth,
      expYear: expYear,
      setAsDefault: document.getElementById("set-default").checked,
    };
    // Nothing sensitive stays on screen after tokenising.
    numberField.value = "";
    cvcField.value = "";
    document.getElementById("submit").disabled = true;
    show("Saving your card...", "");
    fetch("/v1/hotel-ea/payment-methods/attach", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    })
      .then(function (res) {
        return res.json().then(function (json) {
          return { ok: res.ok, json: json };
        });
      })
      .then(function (r) {
        if (r.ok && r.json.data && r.json.data.status === "ATTACHED") {
          var pm = r.json.data.paymentMethod;
          form.hidden = true;
          show(`Card saved: ${pm.brand} ending ${pm.last4}. You can go back to the chat and say "Done".`, "ok");
        } else {
          document.getElementById("submit").disabled = false;
          show(r.json?.message || "The card could not be saved.", "error");
        }
      })
      .catch(function () {
        document.getElementById("submit").disabled = false;
        show("The card could not be saved. Check your connection and try again.", "error");
      });
  });
})();
