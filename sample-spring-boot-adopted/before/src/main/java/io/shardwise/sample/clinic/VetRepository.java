package io.shardwise.sample.clinic;

import java.util.List;
import org.springframework.data.jpa.repository.JpaRepository;

public interface VetRepository extends JpaRepository<Vet, Integer> {

  List<Vet> findAllByOrderByLastName();
}
