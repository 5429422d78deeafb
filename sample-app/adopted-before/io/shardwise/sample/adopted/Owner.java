package io.shardwise.sample.adopted;

import jakarta.persistence.CascadeType;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import java.util.ArrayList;
import java.util.List;

/** An owner: the root of its pets and their visits. */
@Entity
@Table(name = "owners")
@NamedQuery(name = "Owner.byLastName", query = "select o from Owner o where o.lastName = :lastName")
public class Owner {
  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Integer id;

  private String firstName;

  private String lastName;

  private String city;

  @OneToMany(mappedBy = "owner", cascade = CascadeType.ALL)
  private List<Pet> pets = new ArrayList<>();

  protected Owner() {}

  public Owner(String firstName, String lastName, String city) {
    this.firstName = firstName;
    this.lastName = lastName;
    this.city = city;
  }

  public Pet addPet(String name, PetType type) {
    Pet pet = new Pet(this, name, type);
    pets.add(pet);
    return pet;
  }

  public Integer getId() {
    return id;
  }

  public String getFirstName() {
    return firstName;
  }

  public String getLastName() {
    return lastName;
  }

  public String getCity() {
    return city;
  }

  public List<Pet> getPets() {
    return pets;
  }
}
