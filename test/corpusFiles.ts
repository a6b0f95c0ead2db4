// The transcript files of the shared corpus beside the project (../shared/corpus): each format's folder, every
// file a reader takes (.jsonl, .json, .af, and those gzipped), the labels folder and manifests left out. The files
// are read where they are, never copied into the project.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The transcript files directly in each format's folder of `corpus`. */
export function corpusFiles(corpus: string): string[] {
  const files: string[] = [];
  for (const folder of readdirSync(corpus, { withFileTypes: true })) {
    if (!folder.isDirectory() || folder.name === 'labels') continue;
    for (const entry of readdirSync(join(corpus, folder.name), { withFileTypes: true })) {
      if (entry.isFile() && /\.(jsonl|json|af)(\.gz)?$/.test(entry.name) && !entry.name.includes('manifest')) {
        files.push(join(corpus, folder.name, entry.name));
      }
    }
  }
  return files;
}
