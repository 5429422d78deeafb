package io.shardwise.sample.clinic;

import java.util.List;
import org.springframework.data.jpa.repository.JpaRepository;

public interface PetKindRepository extends JpaRepository<PetKind, Integer> {

  List<PetKind> findAllByOrderByName();
}
