import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findFiles } from "./find-files.js";

function tree(): string {
  const root = mkdtempSync(join(tmpdir(), "docqa-find-"));
  for (const folder of ["docs/deep", "docs/.drafts", ".git", "node_modules/pkg", "docs/node_modules", "linked"]) {
    mkdirSync(join(root, folder), { recursive: true });
  }
  const files = [
    "b.md",
    "A.txt",
    "docs/guide.MD",
    "docs/deep/data.csv",
    "docs/.hidden.md",
    "docs/.drafts/draft.md",
    ".git/config.txt",
    "node_modules/pkg/readme.md",
    "docs/node_modules/notes.md",
    "docs/slides.pptx",
    "docs/README",
    "linked/target.md",
  ];
  for (const file of files) writeFileSync(join(root, file), "x");
  symlinkSync(join(root, "linked"), join(root, "docs", "link-to-folder"));
  symlinkSync(join(root, "b.md"), join(root, "docs", "link-to-file.md"));
  return root;
}

describe("findFiles", () => {
  it("walks folders recursively, leaving out hidden entries, node_modules and symbolic links, sorted by path", async () => {
    const root = tree();
    const { files, skipped } = await findFiles([join(root, "docs"), join(root, "b.md"), join(root, "missing.md")], ["md", "txt", "csv"]);
    expect(files).toEqual([
      { path: join(root, "b.md"), relativePath: "b.md", extension: "md" },
      { path: join(root, "docs", "deep", "data.csv"), relativePath: "deep/data.csv", extension: "csv" },
      { path: join(root, "docs", "guide.MD"), relativePath: "guide.MD", extension: "md" },
    ]);
    expect(skipped).toEqual([
      { path: join(root, "docs", "README"), reason: "unsupported file type (supported: .md, .txt, .csv)" },
      { path: join(root, "docs", "slides.pptx"), reason: "unsupported file type .pptx (supported: .md, .txt, .csv)" },
      { path: join(root, "missing.md"), reason: "not found" },
    ]);
  });

  it("lists a whole tree relative to its root, and follows a symbolic link given directly", async () => {
    const root = tree();
    const { files } = await findFiles([root, join(root, "docs", "link-to-file.md")], ["md", "txt", "csv"]);
    expect(files.map((file) => file.relativePath)).toEqual([
      "A.txt",
      "b.md",
      "docs/deep/data.csv",
      "docs/guide.MD",
      "link-to-file.md",
      "linked/target.md",
    ]);
  });
});
