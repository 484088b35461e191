package demo

import "fmt"

// FailTask makes GET /connectors/NAME/status report the connector's task
// as FAILED with a trace, as Connect does after a task threw: what
// monitoring must see. The simulated task itself runs on.
func (c *Cluster) FailTask(name string, task int) error {
	conn, ok := c.lookup(name)
	if !ok {
		return fmt.Errorf("no connector %s", name)
	}
	if task < 0 || task >= conn.spec.taskCount() {
		return fmt.Errorf("connector %s has no task %d", name, task)
	}
	c.failedTasks.Store(failedTask{name, task}, true)
	return nil
}

// failedTask names a task FailTask failed.
type failedTask struct {
	connector string
	task      int
}

// taskFailed: FailTask failed this task.
func (c *Cluster) taskFailed(name string, task int) bool {
	_, ok := c.failedTasks.Load(failedTask{name, task})
	return ok
}
