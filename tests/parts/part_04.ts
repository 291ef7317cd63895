/** Part 4 of the suite (tests/parts/parts.ts). */
import { loadPart } from "./parts.ts";

await loadPart(4);
