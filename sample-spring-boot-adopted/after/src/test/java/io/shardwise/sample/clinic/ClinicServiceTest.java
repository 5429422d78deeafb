package io.shardwise.sample.clinic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.testkit.junit.ShardedPostgres;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.boot.jpa.test.autoconfigure.TestEntityManager;
import org.springframework.context.annotation.Import;
import org.springframework.data.domain.Page;

@ShardedPostgres(shards = 2, replicas = 1, scope = ShardedPostgres.Scope.RUN)
@DataJpaTest
@Import(Clinic.class)
class ClinicServiceTest {
  @Autowired Clinic clinic;
  @Autowired TestEntityManager entities;

  @Test
  void findsOwnersByTheStartOfTheirLastNamePageByPage() {
    Page<Owner> first = clinic.findOwners("B", 0);
    assertThat(first.getContent()).extracting(Owner::getLastName)
        .containsExactly("Baker", "Barros", "Bauer", "Becker", "Bianchi");
    assertThat(first.getTotalElements()).isEqualTo(7);
    assertThat(clinic.findOwners("B", 1).getContent()).extracting(Owner::getLastName).containsExactly("Blum", "Brandt");
  }

  @Test
  void aWildcardInTheSearchIsALetter() {
    assertThat(clinic.findOwners("B_", 0).getContent()).isEmpty();
    assertThat(clinic.findOwners("Ba", 0).getContent()).extracting(Owner::getLastName)
        .containsExactly("Baker", "Barros", "Bauer");
  }

  @Test
  void findsAnOwnerWithPetsAndVisits() {
    Owner owner = clinic.owner(10);
    assertThat(owner.getName()).isEqualTo("Luc Dubois");
    assertThat(owner.getPets()).extracting(Pet::getName).containsExactly("Minou", "Rex");
    assertThat(owner.getPet(11).getVisits()).extracting(Visit::getDescription)
        .containsExactly("x-ray of the left leg", "check-up after the x-ray");
    assertThat(owner.getPet(11).getKind().getName()).isEqualTo("dog");
  }

  @Test
  void anUnknownOwnerIsNotFound() {
    assertThatThrownBy(() -> clinic.owner(99)).isInstanceOf(NotFoundException.class);
  }

  @Test
  void registersANewOwnerWithAnIdAboveTheSeedRows() {
    Owner owner = new Owner();
    owner.setFirstName("Ada");
    owner.setLastName("Lovelace");
    Integer id = clinic.register(owner).getId();
    assertThat(id).isGreaterThanOrEqualTo(100);
    entities.flush();
    entities.clear();
    assertThat(clinic.owner(id).getLastName()).isEqualTo("Lovelace");
  }

  @Test
  void savesAPetAndAVisitAddedToADetachedOwner() {
    Owner owner = clinic.owner(3);
    entities.clear();
    Pet pet = new Pet();
    pet.setName("Figo");
    pet.setBirthDate(LocalDate.of(2024, 2, 2));
    pet.setKind(clinic.kinds().get(0));
    owner.addPet(pet);
    owner.setCity("Lisboa");
    clinic.save(owner);
    entities.flush();
    entities.clear();

    Owner saved = clinic.owner(3);
    assertThat(saved.getCity()).isEqualTo("Lisboa");
    assertThat(saved.getPets()).extracting(Pet::getName).containsExactly("Figo", "Kiwi");
    Pet figo = saved.getPets().get(0);
    Visit visit = new Visit();
    visit.setDescription("first check-up");
    entities.clear();
    saved.getPet(figo.getId()).addVisit(visit);
    clinic.save(saved);
    entities.flush();
    entities.clear();
    assertThat(clinic.owner(3).getPet(figo.getId()).getVisits()).extracting(Visit::getDescription)
        .containsExactly("first check-up");
  }

  @Test
  void listsTheKindsAndTheVets() {
    assertThat(clinic.kinds()).extracting(PetKind::getName).containsExactly("bird", "cat", "dog", "hamster", "lizard");
    assertThat(clinic.vets()).extracting(Vet::getName).containsExactly("Tomas Lindqvist", "Ines Okafor", "Mei Tanaka");
    assertThat(clinic.vets().get(0).getSpecialties()).extracting(Specialty::getName)
        .containsExactly("radiology", "surgery");
  }
}
