import { describe, expect, it } from "vitest";
import { docqaErrorOf } from "../../testing/docqa-error-of.js";
import { craftZip } from "../../testing/hostile-archives.js";
import type { ArchiveLimits } from "./archive-limits.js";
import { openBoundedZip } from "./bounded-zip.js";

const roomy: ArchiveLimits = { maxEntries: 100, maxEntryBytes: 1_000_000, maxArchiveBytes: 1_000_000, maxCompressionRatio: 10_000 };
const kilobyte = "k".repeat(1000);

describe("openBoundedZip", () => {
  it("lists the entries without inflating any, and reads one on request", async () => {
    const archive = await openBoundedZip(
      "two.zip",
      craftZip([
        { name: "folder/", body: "" },
        { name: "a.txt", body: "alpha" },
        { name: "b.bin", body: kilobyte, repeat: 3, method: 0 },
      ]),
      roomy,
      "zip archive",
    );
    expect(archive.names).toEqual(["a.txt", "b.bin"]);
    expect([archive.has("a.txt"), archive.has("folder/"), archive.inflatedBytes]).toEqual([true, false, 0]);
    expect((await archive.read("b.bin")).toString()).toBe(kilobyte.repeat(3));
    expect(archive.inflatedBytes).toBe(3000);
    archive.close();
  });

  it("counts every read, so a part read again counts again, and refuses every read once a limit is passed", async () => {
    const archive = await openBoundedZip(
      "again.zip",
      craftZip([
        { name: "part.xml", body: kilobyte, repeat: 40 },
        { name: "small.xml", body: "<x/>" },
      ]),
      { ...roomy, maxArchiveBytes: 100_000 },
      "zip archive",
    );
    await archive.read("part.xml");
    await archive.read("part.xml");
    const error = await docqaErrorOf(archive.read("part.xml"));
    expect(error.code).toBe("archive_too_large");
    expect(error.publicMessage).toBe(
      "again.zip inflates beyond 100000 bytes, its parts read together (MAX_ARCHIVE_BYTES); refusing a possible zip bomb",
    );
    // Stopped within one inflated chunk (zlib's 16 KiB) of the limit.
    expect(archive.inflatedBytes).toBeLessThanOrEqual(100_000 + 16 * 1024);
    expect(await docqaErrorOf(archive.read("small.xml"))).toBe(error);
    archive.close();
  });

  it("refuses an entry that declares more than the per-entry limit without inflating it", async () => {
    const archive = await openBoundedZip("big.zip", craftZip([{ name: "big.xml", body: kilobyte, repeat: 2000 }]), roomy, "zip archive");
    const error = await docqaErrorOf(archive.read("big.xml"));
    expect(error.publicMessage).toBe(
      "big.zip has a part (big.xml) declaring 2000000 inflated bytes (limit 1000000, MAX_ARCHIVE_ENTRY_BYTES); refusing a possible zip bomb",
    );
    expect(archive.inflatedBytes).toBe(0);
    archive.close();
  });

  it("reports a missing part and a read after close as errors with codes", async () => {
    const archive = await openBoundedZip("odd.zip", craftZip([{ name: "a.txt", body: "alpha" }]), roomy, "zip archive");
    expect((await docqaErrorOf(archive.read("b.txt"))).publicMessage).toBe("odd.zip is not a readable zip archive (it has no part b.txt)");
    archive.close();
    expect((await docqaErrorOf(archive.read("a.txt"))).code).toBe("internal_error");
  });

  it("refuses an archive that is not a zip", async () => {
    const error = await docqaErrorOf(openBoundedZip("text.zip", new TextEncoder().encode("plain text"), roomy, "zip archive"));
    expect(error.code).toBe("corrupt_file");
  });
});
