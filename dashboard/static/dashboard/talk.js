/*
 * The talk page: a smart display for the owner's store (plain JS, no build step).
 *
 * Voice: the microphone runs through an AudioWorklet (pcm-worklet.js) that posts 16 kHz mono
 * PCM16 frames of ~100 ms; they stream over the store's voice socket between a "start" and the
 * end of the utterance (the client's "end" on push-to-talk release, or the server's VAD).
 * Typed requests go over the same socket, or to POST /api/v1/turns when it is down. The turn's
 * events (transcript, action, tool_call, reply, media, error, done) render as they arrive; the
 * reply is spoken with speechSynthesis unless muted; media plays after the reply is spoken.
 *
 * The page never shows anything the server did not send for this store: every URL it uses
 * comes from data attributes the view rendered for the request's own store.
 */
(function () {
  "use strict";

  const root = document.getElementById("talk");
  if (!root) return;

  const byId = (id) => document.getElementById(id);
  const el = {
    status: byId("talk-status"),
    heard: byId("talk-heard"),
    transcript: byId("talk-transcript"),
    normalized: byId("talk-normalized"),
    reply: byId("talk-reply"),
    error: byId("talk-error"),
    media: byId("talk-media"),
    draft: byId("talk-draft"),
    draftLines: byId("talk-draft-lines"),
    draftTotal: byId("talk-draft-total"),
    draftSupplier: byId("talk-draft-supplier"),
    approve: byId("talk-approve"),
    decline: byId("talk-decline"),
    button: byId("talk-button"),
    buttonLabel: byId("talk-button-label"),
    level: byId("talk-level"),
    form: byId("talk-form"),
    text: byId("talk-text"),
    action: byId("talk-action"),
    calls: byId("talk-calls"),
    connection: byId("talk-connection"),
    mode: byId("talk-mode"),
    handsFree: byId("talk-handsfree"),
    mute: byId("talk-mute"),
    voice: byId("talk-voice"),
    partial: byId("talk-partial"),
    partialText: byId("talk-partial-text"),
    newConversation: byId("talk-new"),
  };
  const config = {
    store: root.dataset.store,
    currency: root.dataset.currency || "USD",
    socketPath: root.dataset.socketPath,
    turnsUrl: root.dataset.turnsUrl,
    workletUrl: root.dataset.workletUrl,
    approveUrl: root.dataset.approveUrl || "",
    declineUrl: root.dataset.declineUrl || "",
    placeholder: root.dataset.draftPlaceholder || "",
  };
  const csrfInput = el.form.querySelector("input[name=csrfmiddlewaretoken]");
  const csrfToken = csrfInput ? csrfInput.value : "";

  const TAP_MS = 350; // a shorter press is a click: it toggles instead of holding
  const TURN_TIMEOUT_MS = 120000; // no answer by then: say so and free the page
  const ERROR_GRACE_MS = 5000; // an error event without a "done" ends the turn after this
  const FLUSH_TIMEOUT_MS = 500;
  // Hands-free: an utterance with no speech is reopened before the server's length limit (30 s).
  const QUIET_RESTART_MS = 20000;
  const HANDS_FREE_MAX_FAILURES = 3; // in a row: stop instead of looping on an error
  const SAMPLE_RATE = 16000;
  const KEYS = {
    conversation: "shelfwise.talk." + config.store + ".conversation",
    mode: "shelfwise.talk.mode",
    muted: "shelfwise.talk.muted",
    voice: "shelfwise.talk.voice",
  };
  // The server's voice: how long a reply may take to arrive and play before the page moves on.
  const SERVER_VOICE_WAIT_MS = 8000;
  const PHASE_TEXT = {
    idle: "Ready",
    listening: "Listening…",
    thinking: "Thinking…",
    speaking: "Speaking…",
  };

  const state = {
    conversation: storageGet(sessionStorage, KEYS.conversation),
    socket: null,
    ready: false,
    retries: 0,
    reconnectTimer: null,
    mic: null,
    starting: null, // the promise of a voice start in progress
    streaming: false, // microphone frames go to the socket
    utterance: false, // "start" sent; the server has not ended the utterance yet
    flushWaiter: null,
    handsFree: false,
    muted: storageGet(localStorage, KEYS.muted) === "1",
    serverVoice: storageGet(localStorage, KEYS.voice) === "server",
    serverSpeech: null, // the reply's pieces of server speech, played in order
    toggled: false,
    pressing: false,
    pressedAt: 0,
    ignoreRelease: false,
    spaceAt: 0,
    turn: null,
    turnSeq: 0,
    errorTimer: null,
    speech: Promise.resolve(),
    pendingDraft: null,
    heardSpeech: false,
    quietTimer: null,
    failures: 0,
  };

  function storageGet(storage, key) {
    try {
      return storage.getItem(key);
    } catch (error) {
      return null; // storage disabled: the page still works, it just forgets
    }
  }

  function storageSet(storage, key, value) {
    try {
      if (value === null) storage.removeItem(key);
      else storage.setItem(key, value);
    } catch (error) {
      /* storage disabled */
    }
  }

  // ---- what the display shows -------------------------------------------------------------

  function setPhase(phase) {
    root.dataset.state = phase;
    el.status.textContent = PHASE_TEXT[phase] || phase;
    updateButton();
  }

  function updateButton() {
    let label = "Hold to talk";
    if (state.handsFree) label = "Hands-free is on — press to stop";
    else if (state.streaming || state.starting) label = state.toggled ? "Listening — press to send" : "Listening — release to send";
    else if (state.turn) label = "Thinking…";
    el.buttonLabel.textContent = label;
    el.button.setAttribute("aria-pressed", state.streaming || state.handsFree ? "true" : "false");
    el.button.classList.toggle("is-live", state.streaming);
  }

  function showConnection(text, socketState) {
    el.connection.textContent = text;
    root.dataset.socket = socketState;
  }

  function clearDisplay() {
    el.error.hidden = true;
    el.error.textContent = "";
    el.media.replaceChildren();
    el.calls.replaceChildren();
    el.action.textContent = "";
    el.partial.hidden = true;
  }

  function showError(message) {
    el.error.textContent = message;
    el.error.hidden = false;
  }

  function showTranscript(text, normalized) {
    el.heard.hidden = false;
    el.transcript.textContent = text ? "“" + text + "”" : "(nothing heard)";
    el.normalized.textContent = normalized && normalized !== text ? " — understood as “" + normalized + "”" : "";
  }

  function showReply(text) {
    const paragraph = document.createElement("p");
    paragraph.className = "talk-reply-text";
    paragraph.textContent = text || "";
    el.reply.replaceChildren(paragraph);
    if (text) state.speech = speak(text);
  }

  function showAction(event) {
    const parts = ["Action: " + (event.action || "none")];
    if (event.item) parts.push("product words “" + event.item + "”");
    if (event.topic) parts.push("topic " + event.topic);
    el.action.textContent = parts.join(" · ");
  }

  function summarise(value) {
    let text;
    try {
      text = JSON.stringify(value);
    } catch (error) {
      text = String(value);
    }
    if (text === undefined) return "";
    return text.length > 240 ? text.slice(0, 237) + "…" : text;
  }

  function addCall(call) {
    const item = document.createElement("li");
    item.className = call.ok === false ? "talk-call failed" : "talk-call";
    const name = document.createElement("code");
    name.textContent = call.tool + "(" + summarise(call.arguments || {}) + ")";
    const outcome = document.createElement("span");
    const ms = typeof call.ms === "number" ? " · " + Math.round(call.ms) + " ms" : "";
    outcome.textContent = call.ok === false ? " refused: " + (call.error || "failed") : " ok" + ms;
    item.append(name, outcome);
    if (call.result !== undefined && call.result !== null) {
      const result = document.createElement("pre");
      result.textContent = summarise(call.result);
      item.append(result);
    }
    el.calls.append(item);
  }

  function safeUrl(url) {
    // Media URLs are the server's own (static files, shelf photos); anything else is not shown.
    if (typeof url !== "string") return null;
    try {
      const parsed = new URL(url, window.location.href);
      return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
    } catch (error) {
      return null;
    }
  }

  function addMedia(item) {
    const url = item && safeUrl(item.url);
    if (!url) return;
    const figure = document.createElement("figure");
    figure.className = "talk-media-item talk-media-" + item.kind;
    let element;
    if (item.kind === "photo") {
      element = document.createElement("img");
      element.alt = item.title || "Shelf photo";
      element.decoding = "async";
    } else if (item.kind === "video" || item.kind === "audio") {
      element = document.createElement(item.kind);
      element.controls = true;
      element.preload = "metadata";
      if (item.kind === "video") element.playsInline = true;
      element.addEventListener("ended", () => resumeHandsFree());
    } else {
      return;
    }
    element.src = url;
    const caption = document.createElement("figcaption");
    caption.textContent = item.title || "";
    figure.append(element, caption);
    el.media.append(figure);
    if (state.turn) state.turn.media += 1;
  }

  function playableMedia() {
    return Array.from(el.media.querySelectorAll("video, audio"));
  }

  function mediaPlaying() {
    return playableMedia().some((media) => !media.paused && !media.ended);
  }

  function stopMedia() {
    playableMedia().forEach((media) => media.pause());
  }

  function formatMoney(value) {
    const number = Number(value);
    if (!Number.isFinite(number)) return String(value);
    try {
      return new Intl.NumberFormat(document.documentElement.lang || undefined, { style: "currency", currency: config.currency }).format(number);
    } catch (error) {
      return number.toFixed(2);
    }
  }

  function renderDraft(draft) {
    state.pendingDraft = draft && draft.id ? draft : null;
    if (!state.pendingDraft) {
      el.draft.hidden = true;
      el.draftLines.replaceChildren();
      return;
    }
    const rows = (draft.lines || []).map((line) => {
      const row = document.createElement("tr");
      [line.product, String(line.qty), formatMoney(line.est_cost)].forEach((text) => {
        const cell = document.createElement("td");
        cell.textContent = text;
        row.append(cell);
      });
      return row;
    });
    el.draftLines.replaceChildren(...rows);
    el.draftTotal.textContent = formatMoney(draft.est_total);
    el.draftSupplier.textContent = draft.supplier ? "from " + draft.supplier : "";
    el.draft.dataset.draft = String(draft.id);
    el.approve.disabled = false;
    el.decline.disabled = false;
    el.draft.hidden = false;
  }

  // ---- speech out -----------------------------------------------------------------------

  function voiceName() {
    return state.serverVoice ? "server" : "browser";
  }

  // The server speaks the reply in "speech" events (one Ogg/Opus piece per sentence): they are
  // played in order; the promise settles when the last has played, on an error (the browser's
  // voice then says the text) or after a bound.
  function speakOnServer(text) {
    const speech = { pieces: [], count: null, next: 0, playing: false, resolve: null, text: text, timer: null };
    const done = new Promise((resolve) => { speech.resolve = resolve; });
    const finish = () => {
      if (!speech.resolve) return;
      clearTimeout(speech.timer);
      const resolve = speech.resolve;
      speech.resolve = null;
      if (state.serverSpeech === speech) state.serverSpeech = null;
      if (root.dataset.state === "speaking") setPhase("idle");
      resolve();
    };
    speech.finish = finish;
    speech.timer = setTimeout(finish, SERVER_VOICE_WAIT_MS + text.split(/\s+/).length * 600);
    state.serverSpeech = speech;
    return done;
  }

  function playServerSpeech(speech) {
    if (speech.playing || !speech.resolve) return;
    if (speech.count !== null && speech.next >= speech.count) {
      speech.finish();
      return;
    }
    const piece = speech.pieces[speech.next];
    if (!piece) return;
    speech.playing = true;
    const bytes = Uint8Array.from(atob(piece.audio_b64), (c) => c.charCodeAt(0));
    const url = URL.createObjectURL(new Blob([bytes], { type: "audio/ogg" }));
    const audio = new Audio(url);
    let moved = false;
    const next = (played) => {
      if (moved) return;
      moved = true;
      URL.revokeObjectURL(url);
      speech.playing = false;
      speech.next += 1;
      const key = played ? "voicePlayed" : "voiceFailed";
      root.dataset[key] = String(Number(root.dataset[key] || "0") + 1);
      playServerSpeech(speech);
    };
    audio.onended = () => next(true);
    audio.onerror = () => next(false);
    if (!state.turn && !state.streaming) setPhase("speaking");
    const playing = audio.play();
    if (playing && typeof playing.catch === "function") playing.catch(() => next(false));
  }

  function onServerSpeech(message) {
    const speech = state.serverSpeech;
    if (!speech) return;
    root.dataset.voiceReceived = String(Number(root.dataset.voiceReceived || "0") + 1);
    speech.count = typeof message.count === "number" ? message.count : speech.count;
    speech.pieces[message.index] = message;
    playServerSpeech(speech);
  }

  function onServerSpeechError() {
    const speech = state.serverSpeech;
    if (!speech) return;
    const text = speech.text;
    speech.finish();
    state.speech = speakInBrowser(text);
  }

  function speak(text) {
    if (!state.muted && state.serverVoice && socketReady()) return speakOnServer(text);
    return speakInBrowser(text);
  }

  function speakInBrowser(text) {
    if (state.muted || !("speechSynthesis" in window) || typeof SpeechSynthesisUtterance === "undefined") {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let settled = false;
      let guard = null;
      const finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(guard);
        if (root.dataset.state === "speaking") setPhase("idle");
        resolve();
      };
      window.speechSynthesis.cancel();
      const utterance = new SpeechSynthesisUtterance(text);
      utterance.lang = document.documentElement.lang || "en";
      utterance.onstart = () => {
        if (!state.turn && !state.streaming) setPhase("speaking");
      };
      utterance.onend = finish;
      utterance.onerror = finish;
      // Some browsers (headless ones, no voices installed) never end an utterance: bound it.
      guard = setTimeout(finish, 2000 + text.split(/\s+/).length * 450);
      window.speechSynthesis.speak(utterance);
    });
  }

  function stopSpeaking() {
    if (state.serverSpeech) state.serverSpeech.finish();
    if ("speechSynthesis" in window) window.speechSynthesis.cancel();
  }

  // ---- turns --------------------------------------------------------------------------

  function setConversation(key) {
    state.conversation = key || null;
    storageSet(sessionStorage, KEYS.conversation, state.conversation);
    root.dataset.conversation = state.conversation || "";
  }

  function openTurn(kind) {
    if (state.turn) return state.turn;
    state.turnSeq += 1;
    const turn = { kind: kind, seq: state.turnSeq, replied: false, media: 0, calls: 0, heard: false, timer: null };
    turn.timer = setTimeout(() => {
      if (state.turn !== turn) return;
      showError("No answer came back in time. Nothing more will arrive for that request; please try again.");
      closeTurn(null);
    }, TURN_TIMEOUT_MS);
    state.turn = turn;
    setPhase("thinking");
    return turn;
  }

  function closeTurn(result) {
    const turn = state.turn;
    state.turn = null;
    if (turn) clearTimeout(turn.timer);
    clearTimeout(state.errorTimer);
    state.failures = result ? 0 : state.failures + 1;
    if (result) {
      if (result.conversation) setConversation(result.conversation);
      if (!turn || !turn.heard) showTranscript(result.transcript, result.normalized);
      if (!turn || !turn.replied) showReply(result.reply);
      if (!turn || turn.media === 0) (result.media || []).forEach(addMedia);
      // The answer's tool calls are the record of the turn: they replace what streamed in.
      el.calls.replaceChildren();
      (result.tool_calls || []).forEach(addCall);
      const latency = typeof result.latency_ms === "number" ? " · " + Math.round(result.latency_ms) + " ms" : "";
      const mode = result.mode ? " · " + result.mode : "";
      if (result.action || !el.action.textContent) el.action.textContent = "Action: " + (result.action || "none") + mode + latency;
      else el.action.textContent += mode + latency;
      renderDraft(result.pending_draft);
      root.dataset.turns = String(Number(root.dataset.turns || "0") + 1);
    }
    setPhase(state.streaming ? "listening" : "idle");
    const seq = turn ? turn.seq : state.turnSeq;
    state.speech.then(() => afterSpeech(seq));
  }

  function afterSpeech(seq) {
    if (seq !== state.turnSeq || state.turn || state.streaming) return; // a newer turn has begun
    const media = playableMedia()[0];
    if (media) {
      const playing = media.play();
      if (playing && typeof playing.catch === "function") playing.catch(() => resumeHandsFree());
      return;
    }
    resumeHandsFree();
  }

  function resumeHandsFree() {
    if (!state.handsFree || state.turn || state.streaming || state.starting || mediaPlaying()) return;
    if (state.failures >= HANDS_FREE_MAX_FAILURES) {
      setHandsFree(false);
      showError("Hands-free stopped after repeated errors. Press the button to talk, or type.");
      return;
    }
    startTalking();
  }

  function watchQuiet() {
    clearTimeout(state.quietTimer);
    if (!state.handsFree) return;
    state.quietTimer = setTimeout(() => {
      // Nobody spoke: start a fresh utterance rather than let the server refuse a long silence.
      if (state.handsFree && state.streaming && !state.heardSpeech) {
        cancelTalking();
        startTalking();
      }
    }, QUIET_RESTART_MS);
  }

  async function sendText(raw) {
    const text = (raw || "").trim();
    if (!text) return;
    if (state.turn) {
      showError("Still working on the last request — one moment.");
      return;
    }
    stopSpeaking();
    stopMedia();
    if (state.streaming || state.utterance) cancelTalking();
    clearDisplay();
    showTranscript(text, "");
    const overSocket = socketReady();
    const turn = openTurn(overSocket ? "text" : "text-rest");
    turn.heard = true;
    const mode = el.mode.value;
    if (overSocket) {
      state.socket.send(JSON.stringify({ type: "text", text: text, mode: mode, conversation: state.conversation,
                                         voice: voiceName() }));
      return;
    }
    try {
      const response = await fetch(config.turnsUrl, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken },
        body: JSON.stringify({ text: text, mode: mode, conversation: state.conversation }),
      });
      const body = await response.json().catch(() => null);
      if (state.turn !== turn) return; // timed out meanwhile
      if (!response.ok) {
        const message = body && body.error && body.error.message;
        showError(message || "The request failed (" + response.status + "). Please try again.");
        closeTurn(null);
        return;
      }
      closeTurn(body);
    } catch (error) {
      if (state.turn !== turn) return;
      showError("Could not reach the store. Check the connection and try again.");
      closeTurn(null);
    }
  }

  async function answerDraft(approve) {
    const draft = state.pendingDraft;
    if (!draft) return;
    const template = approve ? config.approveUrl : config.declineUrl;
    if (!template) {
      // No approvals endpoint here: the owner's yes/no goes to the assistant, which confirms in code.
      sendText(approve ? "yes" : "no");
      return;
    }
    el.approve.disabled = true;
    el.decline.disabled = true;
    stopSpeaking();
    const url = template.replace(config.placeholder, String(draft.id));
    let body = null;
    let ok = false;
    try {
      const response = await fetch(url, {
        method: "POST",
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-CSRFToken": csrfToken },
      });
      body = await response.json().catch(() => null);
      ok = response.ok && !!(body && body.ok);
      const message = (body && (body.message || (body.error && body.error.message))) ||
        (response.ok ? "Done." : "That didn't work (" + response.status + "). Please try again.");
      el.error.hidden = true;
      if (ok) showReply(message);
      else showError(message);
    } catch (error) {
      showError("Could not reach the store. Check the connection and try again.");
    }
    const after = body && body.draft;
    if (ok) renderDraft(after && after.status === "pending" ? after : null);
    else renderDraft(state.pendingDraft);
  }

  // ---- the voice socket ---------------------------------------------------------------

  function socketReady() {
    return !!(state.socket && state.ready && state.socket.readyState === WebSocket.OPEN);
  }

  // Close codes of assistant/consumers.py that a reconnect loop must not hammer.
  const SOCKET_REFUSALS = {
    4401: { text: "Voice needs you signed in. Reload the page to sign in again; typed requests still work." },
    4403: { text: "Voice is not open to you for this store. Typed requests still work." },
    4429: {
      text: "Voice is open in too many windows or devices. Close one; this page tries again every minute. Typed requests still work.",
      retryMs: 60000,
    },
  };

  function connect() {
    clearTimeout(state.reconnectTimer);
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    let socket;
    try {
      socket = new WebSocket(scheme + "//" + window.location.host + config.socketPath);
    } catch (error) {
      showConnection("Voice is offline — typed requests still work. Reconnecting…", "down");
      scheduleReconnect();
      return;
    }
    socket.binaryType = "arraybuffer";
    state.socket = socket;
    state.ready = false;
    showConnection("Connecting…", "connecting");
    socket.onmessage = (event) => {
      if (typeof event.data !== "string") return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      if (message && typeof message.type === "string") handleMessage(message);
    };
    socket.onclose = (event) => {
      if (state.socket !== socket) return;
      state.socket = null;
      state.ready = false;
      if (state.streaming || state.utterance) {
        state.streaming = false;
        state.utterance = false;
        state.toggled = false;
      }
      if (state.turn && state.turn.kind !== "text-rest") {
        showError("The connection dropped before the answer came. Please try again.");
        closeTurn(null);
      }
      updateButton();
      const refusal = SOCKET_REFUSALS[event.code];
      if (refusal) {
        // The server said no for a reason that a quick retry cannot change: say it, and retry
        // only where it can pass later (another window closing frees a slot), slowly.
        showConnection(refusal.text, "down");
        if (refusal.retryMs) state.reconnectTimer = setTimeout(connect, refusal.retryMs);
        return;
      }
      showConnection("Voice is offline — typed requests still work. Reconnecting…", "down");
      scheduleReconnect();
    };
  }

  function scheduleReconnect() {
    const delay = Math.min(15000, 1000 * Math.pow(2, state.retries));
    state.retries += 1;
    state.reconnectTimer = setTimeout(connect, delay);
  }

  // An alert the store raised while the page is open (pushed as it commits): newest first, five at most.
  function showAlert(alert) {
    const list = byId("talk-alerts");
    if (!list || typeof alert.message !== "string") return;
    const item = document.createElement("li");
    item.textContent = alert.message;
    list.prepend(item);
    list.hidden = false;
    while (list.children.length > 5) list.lastElementChild.remove();
  }

  function handleMessage(message) {
    const turn = state.turn;
    switch (message.type) {
      case "ready":
        state.ready = true;
        state.retries = 0;
        showConnection("Voice is ready.", "ready");
        break;
      case "listening":
        if (state.streaming) setPhase("listening");
        break;
      case "vad":
        if (message.speech && state.handsFree && !state.heardSpeech) clearDisplay();
        if (message.speech) state.heardSpeech = true;
        el.button.classList.toggle("is-hearing", !!message.speech);
        break;
      case "end_of_utterance":
        root.dataset.endedBy = message.by || "";
        state.utterance = false;
        state.streaming = false;
        state.toggled = false;
        state.pressing = false;
        el.button.classList.remove("is-hearing");
        openTurn("voice");
        break;
      case "partial":
        // What the server has heard so far, while the owner is still speaking.
        el.partial.hidden = false;
        el.partialText.textContent = message.text || "";
        root.dataset.partials = String(Number(root.dataset.partials || "0") + 1);
        break;
      case "speech":
        onServerSpeech(message);
        break;
      case "speech_error":
        onServerSpeechError();
        break;
      case "transcript":
        el.partial.hidden = true;
        if (turn) turn.heard = true;
        showTranscript(message.text, message.normalized);
        break;
      case "action":
        showAction(message);
        break;
      case "tool_call":
        if (turn) turn.calls += 1;
        addCall(message);
        break;
      case "reply":
        if (turn) turn.replied = true;
        if (root.dataset.state !== "listening") setPhase("speaking");
        showReply(message.text);
        break;
      case "media":
        addMedia(message);
        break;
      case "error":
        showError(message.message || "Something went wrong. Nothing was changed; please try again.");
        if (!state.turn) {
          // An error before any turn (bad audio, a refused start): the utterance is over.
          state.utterance = false;
          state.streaming = false;
          setPhase("idle");
        } else {
          clearTimeout(state.errorTimer);
          state.errorTimer = setTimeout(() => {
            if (state.turn === turn) closeTurn(null);
          }, ERROR_GRACE_MS);
        }
        break;
      case "alert":
        showAlert(message.alert || {});
        break;
      case "done":
        if (!state.turn && message.result) openTurn("voice");
        closeTurn(message.result || null);
        break;
      default:
        break; // guard verdicts and anything newer: nothing to show on the display
    }
  }

  // ---- the microphone -------------------------------------------------------------------

  async function ensureMic() {
    if (state.mic) return state.mic;
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || typeof AudioWorkletNode === "undefined") {
      throw new Error("unsupported");
    }
    // Echo cancellation keeps the spoken reply out of a hands-free microphone. Noise suppression
    // and gain control stay off: they smear speech in ways Whisper mishears (measured with the
    // e2e test's espeak phrase: "Where do we keep the haldi?" with them off, "When do we keep
    // the halted?" with both on).
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: { channelCount: 1, echoCancellation: true, noiseSuppression: false, autoGainControl: false },
    });
    const context = new AudioContext();
    await context.audioWorklet.addModule(config.workletUrl);
    const source = context.createMediaStreamSource(stream);
    const node = new AudioWorkletNode(context, "pcm-downsampler", {
      numberOfInputs: 1,
      numberOfOutputs: 1,
      processorOptions: { targetRate: SAMPLE_RATE, frameMs: 100 },
    });
    // The worklet only runs while the graph pulls it: route it to the speakers at zero volume.
    const silent = context.createGain();
    silent.gain.value = 0;
    source.connect(node);
    node.connect(silent);
    silent.connect(context.destination);
    node.port.onmessage = onFrame;
    state.mic = { stream: stream, context: context, node: node };
    return state.mic;
  }

  function releaseMic() {
    const mic = state.mic;
    state.mic = null;
    if (!mic) return;
    mic.stream.getTracks().forEach((track) => track.stop());
    mic.context.close().catch(() => {});
  }

  function micError(error) {
    if (error && error.message === "unsupported") return "This browser cannot record here. Type your request instead.";
    if (error && (error.name === "NotAllowedError" || error.name === "SecurityError")) {
      return "The microphone is blocked for this page. Allow it in the browser, or type your request.";
    }
    if (error && error.name === "NotFoundError") return "No microphone was found. Type your request instead.";
    return "The microphone could not start. Type your request instead.";
  }

  function onFrame(event) {
    const data = event.data || {};
    el.level.style.transform = "scaleX(" + (state.streaming ? data.level || 0 : 0) + ")";
    if (state.streaming && data.pcm && data.pcm.byteLength && socketReady()) state.socket.send(data.pcm);
    if (data.final && state.flushWaiter) {
      const waiter = state.flushWaiter;
      state.flushWaiter = null;
      waiter();
    }
  }

  function flushMic() {
    if (!state.mic) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        state.flushWaiter = null;
        resolve();
      }, FLUSH_TIMEOUT_MS);
      state.flushWaiter = () => {
        clearTimeout(timer);
        resolve();
      };
      state.mic.node.port.postMessage("flush");
    });
  }

  function startTalking() {
    if (state.streaming || state.starting) return state.starting || Promise.resolve(true);
    if (state.turn) {
      showError("Still working on the last request — one moment.");
      state.toggled = false;
      return Promise.resolve(false);
    }
    stopSpeaking();
    stopMedia();
    if (!socketReady()) {
      showError("Voice needs the live connection, which is down right now. Type your request instead.");
      state.toggled = false;
      state.handsFree = false;
      updateHandsFree();
      return Promise.resolve(false);
    }
    state.starting = (async () => {
      let mic;
      try {
        mic = await ensureMic();
        await mic.context.resume();
      } catch (error) {
        showError(micError(error));
        state.toggled = false;
        state.handsFree = false;
        updateHandsFree();
        return false;
      }
      if (!socketReady()) return false;
      // Hands-free listens again right after an answer: keep it (and its shelf photo) on screen
      // until the owner starts the next request.
      if (!state.handsFree) clearDisplay();
      mic.node.port.postMessage("reset");
      state.socket.send(JSON.stringify({
        type: "start",
        mode: el.mode.value,
        conversation: state.conversation,
        format: "pcm16",
        sample_rate: SAMPLE_RATE,
        voice: voiceName(),
      }));
      state.utterance = true;
      state.streaming = true;
      state.heardSpeech = false;
      setPhase("listening");
      watchQuiet();
      return true;
    })().finally(() => {
      state.starting = null;
      updateButton();
    });
    updateButton();
    return state.starting;
  }

  async function stopTalking() {
    if (state.starting) await state.starting;
    if (!state.streaming) return;
    await flushMic(); // every sample reaches the server before "end"
    state.streaming = false;
    state.toggled = false;
    if (state.utterance && socketReady()) {
      state.utterance = false;
      state.socket.send(JSON.stringify({ type: "end" }));
      openTurn("voice");
    } else {
      setPhase("idle");
    }
    updateButton();
  }

  function cancelTalking() {
    const wasOpen = state.utterance;
    clearTimeout(state.quietTimer);
    state.streaming = false;
    state.utterance = false;
    state.toggled = false;
    state.pressing = false;
    if (wasOpen && socketReady()) state.socket.send(JSON.stringify({ type: "cancel" }));
    if (!state.turn) setPhase("idle");
    updateButton();
  }

  // ---- controls -------------------------------------------------------------------------

  function pressStart() {
    if (state.handsFree) {
      setHandsFree(false);
      state.ignoreRelease = true;
      return;
    }
    if (state.toggled && (state.streaming || state.starting)) {
      state.ignoreRelease = true;
      stopTalking();
      return;
    }
    state.pressing = true;
    state.pressedAt = performance.now();
    startTalking();
  }

  function pressEnd() {
    if (state.ignoreRelease) {
      state.ignoreRelease = false;
      return;
    }
    if (!state.pressing) return;
    state.pressing = false;
    if (performance.now() - state.pressedAt < TAP_MS) {
      state.toggled = true; // a click: keep listening until the next press or the server's VAD
      updateButton();
      return;
    }
    stopTalking();
  }

  function keyboardToggle() {
    if (state.handsFree) {
      setHandsFree(false);
    } else if (state.streaming || state.starting) {
      stopTalking();
    } else {
      state.toggled = true;
      startTalking();
    }
  }

  function updateHandsFree() {
    el.handsFree.setAttribute("aria-pressed", state.handsFree ? "true" : "false");
    el.handsFree.textContent = state.handsFree ? "Hands-free: on" : "Hands-free";
    root.dataset.handsFree = state.handsFree ? "on" : "off";
    updateButton();
  }

  function setHandsFree(on) {
    state.handsFree = on;
    state.failures = 0;
    updateHandsFree();
    if (on) {
      state.toggled = true;
      if (!state.turn) startTalking();
    } else if (state.streaming || state.utterance || state.starting) {
      cancelTalking();
    }
  }

  function updateVoice() {
    el.voice.setAttribute("aria-pressed", state.serverVoice ? "true" : "false");
    root.dataset.voice = voiceName();
  }

  function updateMute() {
    el.mute.setAttribute("aria-pressed", state.muted ? "true" : "false");
    el.mute.textContent = state.muted ? "Voice muted" : "Mute voice";
  }

  function isTextField(target) {
    if (!target || !target.closest) return false;
    return !!target.closest("input, textarea, select, [contenteditable]");
  }

  function isOtherControl(target) {
    if (!target || !target.closest || target === el.button) return false;
    return !!target.closest("button, a, summary, [role=button]");
  }

  el.button.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    el.button.focus();
    if (el.button.setPointerCapture) {
      try {
        el.button.setPointerCapture(event.pointerId);
      } catch (error) {
        /* synthetic pointers cannot be captured */
      }
    }
    pressStart();
  });
  el.button.addEventListener("pointerup", pressEnd);
  el.button.addEventListener("pointercancel", pressEnd);
  el.button.addEventListener("click", (event) => {
    // Pointer presses are handled above; a click with no pointer is Enter (or assistive tech).
    if (event.detail !== 0 || performance.now() - state.spaceAt < 400) return;
    keyboardToggle();
  });

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      if (state.streaming || state.utterance || state.starting) {
        setHandsFree(false);
        cancelTalking();
      }
      stopSpeaking();
      return;
    }
    if (event.key !== " " || event.ctrlKey || event.altKey || event.metaKey) return;
    if (isTextField(event.target) || isOtherControl(event.target)) return;
    event.preventDefault();
    state.spaceAt = performance.now();
    if (event.repeat) return;
    pressStart();
  });
  document.addEventListener("keyup", (event) => {
    if (event.key !== " " || isTextField(event.target) || isOtherControl(event.target)) return;
    event.preventDefault();
    state.spaceAt = performance.now();
    pressEnd();
  });

  el.form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = el.text.value;
    if (!text.trim()) return;
    el.text.value = "";
    sendText(text);
  });

  el.handsFree.addEventListener("click", () => setHandsFree(!state.handsFree));
  el.mute.addEventListener("click", () => {
    state.muted = !state.muted;
    storageSet(localStorage, KEYS.muted, state.muted ? "1" : null);
    if (state.muted) stopSpeaking();
    updateMute();
  });
  el.voice.addEventListener("click", () => {
    state.serverVoice = !state.serverVoice;
    storageSet(localStorage, KEYS.voice, state.serverVoice ? "server" : null);
    stopSpeaking();
    updateVoice();
  });
  el.newConversation.addEventListener("click", () => {
    setConversation(null);
    clearDisplay();
    el.heard.hidden = true;
    el.reply.replaceChildren();
    el.action.textContent = "New conversation.";
  });
  el.mode.addEventListener("change", () => storageSet(localStorage, KEYS.mode, el.mode.value));
  el.approve.addEventListener("click", () => answerDraft(true));
  el.decline.addEventListener("click", () => answerDraft(false));

  window.addEventListener("pagehide", () => {
    releaseMic();
    stopSpeaking();
  });

  // ---- start ----------------------------------------------------------------------------

  const savedMode = storageGet(localStorage, KEYS.mode);
  if (savedMode && Array.from(el.mode.options).some((option) => option.value === savedMode)) el.mode.value = savedMode;
  setConversation(state.conversation);
  updateMute();
  updateVoice();
  updateHandsFree();
  setPhase("idle");
  connect();
})();
