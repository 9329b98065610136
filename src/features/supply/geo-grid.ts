/**
 * A fixed grid over the globe for geo search: cells of 1/50 degree (about 2.2 km north-south),
 * numbered row * GRID_COLUMNS + column from the south-west corner. D1 keeps each accommodation's
 * cell with triggers (migration 0020_geo_grid_custom) computing it as here: IEEE doubles,
 * truncation of a non-negative value, the edge of the globe clamped into the last cell.
 */
export const CELLS_PER_DEGREE = 50;
export const GRID_ROWS = 180 * CELLS_PER_DEGREE;
export const GRID_COLUMNS = 360 * CELLS_PER_DEGREE;

export const gridRowOf = (latitude: number) => Math.min(Math.trunc((latitude + 90) * CELLS_PER_DEGREE), GRID_ROWS - 1);
export const gridColumnOf = (longitude: number) =>
  Math.min(Math.trunc((longitude + 180) * CELLS_PER_DEGREE), GRID_COLUMNS - 1);
export const gridCell = (row: number, column: number) => row * GRID_COLUMNS + column;
