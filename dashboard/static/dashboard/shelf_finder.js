// "Say it": fill the shelf finder's search from the browser's speech recognition, where there is one.
// The page works without it (a plain GET form); the button stays hidden where speech is not offered.
(function () {
  "use strict";
  var Recognition = window.SpeechRecognition || window.webkitSpeechRecognition;
  var button = document.getElementById("say-it");
  var input = document.getElementById("finder-q");
  var status = document.getElementById("mic-status");
  if (!Recognition || !button || !input) return;
  button.hidden = false;
  var listening = false;
  var recognition = new Recognition();
  recognition.lang = document.documentElement.lang || "en-US";
  recognition.interimResults = false;
  recognition.maxAlternatives = 1;

  function setListening(on) {
    listening = on;
    button.setAttribute("aria-pressed", on ? "true" : "false");
    status.textContent = on ? "Listening… say the product's name." : "";
  }

  button.addEventListener("click", function () {
    if (listening) { recognition.stop(); return; }
    try { recognition.start(); setListening(true); } catch (e) { setListening(false); }
  });
  recognition.addEventListener("result", function (event) {
    var said = event.results[0][0].transcript;
    input.value = said;
    setListening(false);
    input.form.submit();
  });
  recognition.addEventListener("error", function (event) {
    setListening(false);
    status.textContent = event.error === "not-allowed"
      ? "The microphone is blocked; type the name instead."
      : "Sorry, I didn't catch that. Try again or type it.";
  });
  recognition.addEventListener("end", function () { if (listening) setListening(false); });
})();
