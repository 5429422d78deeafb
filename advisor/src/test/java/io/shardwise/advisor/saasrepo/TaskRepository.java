package io.shardwise.advisor.saasrepo;

import io.shardwise.advisor.saas.Task;
import java.util.List;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;

public interface TaskRepository extends JpaRepository<Task, Long> {
  List<Task> findByProjectId(Long projectId);

  long countByDone(boolean done);

  List<Task> findByAssigneeEmail(String email);

  @Query("select t from Task t where t.project.tenant.id = :tenantId")
  List<Task> ofTenant(Long tenantId);

  @Query(value = "select * from tasks", nativeQuery = true)
  List<Task> everyRow();
}
