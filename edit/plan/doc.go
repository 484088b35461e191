// Package plan is an edit as data: the Request, and the Plan made from it
// (edit/planner), which is the complete description of what will be
// written and checked: every Change with its Writes (the exact key bytes,
// the topic-partition, the value before and after), the path (Connect
// REST, the offsets topic or a sink's group), the connector's state and
// how long the write path will watch the edit. Applying (edit/apply)
// needs nothing from planning but the Plan. It imports only the model.
package plan
