/** Part 10 of the suite (tests/parts/parts.ts). */
import { loadPart } from "./parts.ts";

await loadPart(10);
