// SPDX-License-Identifier: GPL-3.0-or-later
// The studio's capture, on the audio thread: the microphone's samples as they come, unconverted, averaged to mono
// (as an import averages channels), posted to the page in blocks of about 40 ms with the frame number of their first
// sample on the audio context's clock, so that the page can cut a take at the frames where its keys were pressed.
const blockFrames = 2048;

class Recorder extends AudioWorkletProcessor {
  constructor() {
    super();
    this.block = new Float32Array(blockFrames);
    this.filled = 0;
    this.firstFrame = 0;
  }

  process(inputs) {
    const channels = inputs[0];
    if (channels.length === 0) return true;
    const length = channels[0].length;
    for (let index = 0; index < length; index++) {
      if (this.filled === 0) this.firstFrame = currentFrame + index;
      let sum = 0;
      for (const channel of channels) sum += channel[index];
      this.block[this.filled++] = sum / channels.length;
      if (this.filled === blockFrames) {
        this.port.postMessage({ frame: this.firstFrame, samples: this.block }, [this.block.buffer]);
        this.block = new Float32Array(blockFrames);
        this.filled = 0;
      }
    }
    return true;
  }
}

registerProcessor('recorder', Recorder);
