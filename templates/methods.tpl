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
//# count
  count(query, context) {
    throw new Error('{{type}}: count() is not implemented');
  },
//# delete
  delete(model, context) {
    throw new Error('{{type}}: delete() is not implemented');
  },
//# loadRelated
  loadRelated(relationship, models, context) {
    // One call per relationship for all `models`: return an array aligned with them
    // (a model or null each for to-one relationships, an array each for to-many).
    throw new Error(`{{type}}: loadRelated(${relationship.name}) is not implemented`);
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
