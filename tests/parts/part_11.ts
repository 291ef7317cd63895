/** Part 11 of the suite (tests/parts/parts.ts). */
import { loadPart } from "./parts.ts";

await loadPart(11);
