/*
 * The microphone's AudioWorklet: mixes the input to mono, downsamples it to 16 kHz and posts
 * little-endian PCM16 frames of about 100 ms (what the voice socket expects) to the page.
 *
 * Downsampling averages the input samples that fall into each output sample (a box filter),
 * which removes most of what would alias into the speech band at a tiny cost per sample.
 * Messages in: "flush" (post the partial frame now, marked final: push-to-talk release) and
 * "reset" (drop what is buffered). Messages out: {pcm: ArrayBuffer, level: 0..1, final: bool}.
 */
/* global sampleRate, registerProcessor, AudioWorkletProcessor */
"use strict";

class PcmDownsampler extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const settings = (options && options.processorOptions) || {};
    this.targetRate = settings.targetRate || 16000;
    this.ratio = sampleRate / this.targetRate; // input samples per output sample (3 at 48 kHz)
    this.frameSize = Math.round((this.targetRate * (settings.frameMs || 100)) / 1000);
    this.reset();
    this.port.onmessage = (event) => {
      if (event.data === "flush") this.post(true);
      else if (event.data === "reset") this.reset();
    };
  }

  reset() {
    this.frame = new Int16Array(this.frameSize);
    this.filled = 0;
    this.sum = 0;
    this.count = 0;
    this.position = 0;
    this.energy = 0;
  }

  push(value) {
    const clamped = Math.max(-1, Math.min(1, value));
    this.frame[this.filled++] = clamped < 0 ? clamped * 0x8000 : clamped * 0x7fff;
    this.energy += clamped * clamped;
    if (this.filled === this.frameSize) this.post(false);
  }

  post(final) {
    const samples = this.filled;
    const level = samples ? Math.min(1, Math.sqrt(this.energy / samples) * 4) : 0;
    // Int16Array is little-endian on every platform browsers run on; slice keeps only what is filled.
    const pcm = this.frame.buffer.slice(0, samples * 2);
    this.port.postMessage({ pcm, level, final }, [pcm]);
    this.filled = 0;
    this.energy = 0;
  }

  process(inputs) {
    const input = inputs[0];
    if (!input || input.length === 0 || !input[0]) return true;
    const channels = input.length;
    const length = input[0].length;
    for (let i = 0; i < length; i += 1) {
      let sample = 0;
      for (let c = 0; c < channels; c += 1) sample += input[c][i];
      this.sum += sample / channels;
      this.count += 1;
      this.position += 1;
      if (this.position >= this.ratio) {
        this.position -= this.ratio;
        this.push(this.sum / this.count);
        this.sum = 0;
        this.count = 0;
      }
    }
    return true;
  }
}

registerProcessor("pcm-downsampler", PcmDownsampler);
