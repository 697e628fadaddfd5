/**
 * Discovery of files to ingest from a list of files and folders; folders are walked with
 * `tinyglobby`.
 */
import { stat } from "node:fs/promises";
import { extname, relative, resolve, sep } from "node:path";
import { glob } from "tinyglobby";

/** A file found for ingestion. */
export interface FoundFile {
  /** Absolute path. */
  path: string;
  /** Path relative to the folder it was found in (or the file name), with `/` separators: the default document id. */
  relativePath: string;
  /** Lower-case extension without the dot, for example `md`. */
  extension: string;
}

/** A file left out, with the reason. */
export interface SkippedFile {
  path: string;
  reason: string;
}

/**
 * Lists the files under `paths` (files, or folders walked recursively; hidden entries, whose
 * names start with `.`, and `node_modules` folders are ignored, and symbolic links inside a folder
 * are not followed; a path given directly is followed), sorted by absolute path (UTF-16 code unit
 * order). Files whose extension is not in `extensions` are reported as skipped; a given path that
 * does not exist is reported as skipped with reason `not found`.
 *
 * @param extensions - accepted lower-case extensions without dots, for example `["txt", "md"]`.
 */
export async function findFiles(
  paths: readonly string[],
  extensions: readonly string[],
): Promise<{ files: FoundFile[]; skipped: SkippedFile[] }> {
  const files: FoundFile[] = [];
  const skipped: SkippedFile[] = [];
  const accept = (path: string, root: string) => {
    const extension = extname(path).slice(1).toLowerCase();
    if (!extensions.includes(extension)) {
      skipped.push({
        path,
        reason: `unsupported file type${extension ? ` .${extension}` : ""} (supported: ${extensions.map((value) => `.${value}`).join(", ")})`,
      });
      return;
    }
    files.push({ path, relativePath: relative(root, path).split(sep).join("/"), extension });
  };
  const walk = async (root: string): Promise<void> => {
    const paths = await glob(["**/*"], {
      cwd: root,
      absolute: true,
      dot: false,
      ignore: ["**/node_modules/**"],
      followSymbolicLinks: false,
      onlyFiles: true,
      expandDirectories: false,
    });
    for (const path of paths.sort()) accept(resolve(path), root);
  };
  for (const given of paths) {
    const path = resolve(given);
    const info = await stat(path).catch(() => undefined);
    if (!info) skipped.push({ path, reason: "not found" });
    else if (info.isDirectory()) await walk(path);
    else accept(path, resolve(path, ".."));
  }
  files.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
  return { files, skipped };
}
