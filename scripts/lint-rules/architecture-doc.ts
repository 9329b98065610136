/**
 * What docs/architecture.md leaves unsaid: a migration (its file name without `.sql`) it does not
 * name, or a room (directory of src/features) without its entry, `**<room>**` under "Rooms".
 */
export const architectureDocGaps = (doc: string, migrations: string[], rooms: string[]): string[] => {
  // Whole words only: `0001_partners` is not named by `0001_partners_custom`.
  const words = new Set(doc.match(/\w+/g) ?? []);
  return [
    ...migrations.filter((name) => !words.has(name)).map((name) => `migration ${name} (migrations/${name}.sql)`),
    ...rooms.filter((name) => !doc.includes(`**${name}**`)).map((name) => `room **${name}** (src/features/${name}/)`),
  ];
};
