//# find
  find(id, context) {
    throw new Error('{{type}}: find() is not implemented');
  },
//# query
  query(context) {
    throw new Error('{{type}}: query() is not implemented');
  },
//# results
  results(query, context) {
    throw new Error('{{type}}: results() is not implemented');
  },
//# paginate
  paginate(query, { offset, limit }, context) {
    throw new Error('{{type}}: paginate() is not implemented');
  },
//# paginateCursor
  paginateCursor(query, page, context) {
    // Order by page.sorts (the id last) and keep the rows after page.after, at most page.limit.
    throw new Error(`{{type}}: paginateCursor is not implemented`);
  },
//# count
  count(query, context) {
    throw new Error('{{type}}: count() is not implemented');
  },
//# delete
  delete(model, context) {
    throw new Error('{{type}}: delete() is not implemented');
  },
//# create
  create(values, context) {
    // values.attributes and values.relationships hold what the client sent, checked.
    throw new Error('{{type}}: create() is not implemented');
  },
//# update
  update(model, values, context) {
    throw new Error('{{type}}: update() is not implemented');
  },
//# addToRelationship
  addToRelationship(model, relationship, identifiers, context) {
    throw new Error(`{{type}}: addToRelationship(${relationship.name}) is not implemented`);
  },
//# removeFromRelationship
  removeFromRelationship(model, relationship, identifiers, context) {
    throw new Error(`{{type}}: removeFromRelationship(${relationship.name}) is not implemented`);
  },
//# where
  where(query, condition, context) {
    // A condition: keep the resources whose `condition.field` satisfies `condition.op` with
    // `condition.value` (a to-one relationship: its related id; a path such as `author.name`: any
    // related match; `condition.count`: the number of related resources). A group
    // (`condition.op` is 'and', 'or' or 'not') holds `condition.conditions` together.
    throw new Error(`{{type}}: where(${condition.op}) is not implemented`);
  },
//# orderBy
  orderBy(query, field, direction, context) {
    throw new Error(`{{type}}: orderBy(${field}) is not implemented`);
  },
//# countRelated
  countRelated(relationship, models, context) {
    // How many related resources of `relationship` each model has (those the request may see),
    // in the order of `models`, for the whole list in one query.
    throw new Error(`{{type}}: countRelated(${relationship.name}) is not implemented`);
  },
//# can
  can(ability, model, context) {
    // The policy the schema's can(ability) callbacks ask: may this request do `ability` to `model`?
    return false;
  },
//# versionOf
  versionOf(model, context) {
    // The model's version, changed by every write (If-Match): e.g. String(model.version).
    throw new Error('{{type}}: versionOf() is not implemented');
  },
