-- Sentence vectors of the catalogue (src/catalog/meaning/vectors.ts): what a question in other
-- words is compared with. The Universal Sentence Encoder (512 dimensions, float32) embeds each
-- theme's name and summary, each category's name and description, and the titles of each
-- theme's best-scored opportunities; they are written when the catalogue changes (an import, a
-- seed, a server's start) and read into memory once per data version. `hash` is the md5 of the
-- text embedded, so a changed text is embedded again and a vanished one deleted.

create table meaning_vectors (
  kind text not null check (kind in ('theme', 'category', 'title')),
  -- The theme's id (theme, title) or the category's (category).
  ref integer not null,
  hash text not null,
  v bytea not null,
  primary key (kind, ref, hash)
);
