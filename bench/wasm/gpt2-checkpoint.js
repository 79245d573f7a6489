// A GPT-2 checkpoint's bytes through a GPT-2 API's streamed loader, 4 MiB at a time, as the
// page streams a download: the model (ort_gpt2.mjs, gpt2_ab.mjs).

/** @param {object} lab a GPT-2 API (core/gpt2.js)  @param {Uint8Array} bytes a .safetensors file */
export function loadGpt2Checkpoint(lab, bytes) {
  const n = lab.safetensorsHeaderLength(bytes.subarray(0, 8), bytes.length);
  const loader = lab.gpt2Loader({ header: bytes.subarray(0, 8 + n), fileSize: bytes.length });
  for (let at = 8 + n; at < bytes.length; at += 4 << 20) loader.append(bytes.subarray(at, at + (4 << 20)));
  const model = loader.finish();
  loader.delete();
  return model;
}
