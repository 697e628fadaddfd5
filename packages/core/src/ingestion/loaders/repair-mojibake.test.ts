import { describe, expect, it } from "vitest";
import { loadPlainText } from "./load-plain-text.js";
import { maximumRepairSegment, repairMojibake } from "./repair-mojibake.js";

/** `text` encoded as UTF-8 and decoded as Windows-1252, as a misconfigured editor or export saves it. */
function garble(text: string): string {
  return [...new TextEncoder().encode(text)].map((byte) => new TextDecoder("windows-1252").decode(new Uint8Array([byte]))).join("");
}

describe("repairMojibake", () => {
  it("restores UTF-8 text that was decoded as Windows-1252, line by line, and counts the lines", () => {
    const written = "The club paid £850,000 in 1986–1990.\nPlain line.\nCafé “Rouge” opened.";
    expect(garble(written)).toContain("Â£850,000");
    expect(repairMojibake(garble(written))).toEqual({ text: written, repairedLines: 2 });
  });

  it("leaves correct text in any script as it is", () => {
    for (const text of ["naïve café, Ærøskøbing, Straße", "Всеобщая декларация", "日本語のテキスト", "gydradd â’i gilydd", "PÉREZ"]) {
      expect(repairMojibake(text)).toEqual({ text, repairedLines: 0 });
    }
  });

  it("repairs a line longer than one segment, in pieces cut at spaces", () => {
    const written = "paid £850,000 on 1 May. ".repeat(Math.ceil((3 * maximumRepairSegment) / 24));
    expect(repairMojibake(garble(written)).text).toBe(written);
  });

  it("is applied by the text loaders, with a warning", async () => {
    const bytes = new TextEncoder().encode(garble("Transfer fee: £850,000\n"));
    const loaded = await loadPlainText({ name: "club.txt", bytes }, { maxExtractedChars: 1_000_000 } as never);
    expect(loaded.documents[0]?.sections[0]?.text).toBe("Transfer fee: £850,000");
    expect(loaded.warnings).toEqual([
      "club.txt: mojibake repaired on 1 line (UTF-8 text that had been decoded as Windows-1252 or Latin-1)",
    ]);
  });
});
